// SPDX-License-Identifier: MIT
/*
 * --type=db: a window as msprof's SQLite export (MP csrc/application/
 * database/msprof_db.cpp): its table and column names, order and types,
 * times as epoch ns, names as STRING_IDS ids.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "cann.h"
#include "common/err.h"
#include "common/fsutil.h"
#include "comm.h"
#include "copy_calls.h"
#include "naming.h"
#include "overlap.h"
#include "common/testpoint.h"

/* The tables, in msprof's column order; an enum names each. */
enum {
	T_STRING_IDS, T_META_DATA, T_SESSION_TIME_INFO, T_NPU_INFO,
	T_RANK_DEVICE_MAP, T_HOST_INFO, T_TASK, T_COMPUTE_TASK_INFO,
	T_COMM_SCHEDULE, T_COMM_TASK, T_COMMUNICATION_OP, T_CANN_API,
	T_TASK_PMU_INFO, T_MSTX_EVENTS, T_MEMCPY_INFO, T_OSRT_API,
	T_OVERLAP_ANALYSIS, T_ENUM_FIRST,
};

#define ENUM_COLS "id INTEGER PRIMARY KEY, name TEXT"

static const struct table {
	const char *name;
	const char *cols;
} tables[] = {
	[T_STRING_IDS] = { "STRING_IDS", "id INTEGER PRIMARY KEY, value TEXT" },
	[T_META_DATA] = { "META_DATA", "name TEXT, value TEXT" },
	[T_SESSION_TIME_INFO] = { "SESSION_TIME_INFO", "startTimeNs INTEGER, endTimeNs INTEGER" },
	[T_NPU_INFO] = { "NPU_INFO", "id INTEGER, name TEXT" },
	[T_RANK_DEVICE_MAP] = { "RANK_DEVICE_MAP", "rankId INTEGER, deviceId INTEGER" },
	[T_HOST_INFO] = { "HOST_INFO", "hostUid TEXT, hostName TEXT" },
	[T_TASK] = { "TASK", "startNs INTEGER, endNs INTEGER, deviceId INTEGER, "
		"connectionId INTEGER, globalTaskId INTEGER, globalPid INTEGER, "
		"taskType INTEGER, contextId INTEGER, streamId INTEGER, "
		"taskId INTEGER, modelId INTEGER" },
	[T_COMPUTE_TASK_INFO] = { "COMPUTE_TASK_INFO", "name INTEGER, "
		"globalTaskId INTEGER PRIMARY KEY, blockNum INTEGER, "
		"mixBlockNum INTEGER, taskType INTEGER, opType INTEGER, "
		"inputFormats INTEGER, inputDataTypes INTEGER, inputShapes INTEGER, "
		"outputFormats INTEGER, outputDataTypes INTEGER, "
		"outputShapes INTEGER, attrInfo INTEGER, opState INTEGER, "
		"hf32Eligible INTEGER, gridDim INTEGER, blockDim INTEGER" },
	[T_COMM_SCHEDULE] = { "COMMUNICATION_SCHEDULE_TASK_INFO", "name INTEGER, "
		"globalTaskId INTEGER PRIMARY KEY, taskType INTEGER, opType INTEGER" },
	[T_COMM_TASK] = { "COMMUNICATION_TASK_INFO", "name INTEGER, "
		"globalTaskId INTEGER, taskType INTEGER, planeId INTEGER, "
		"groupName INTEGER, notifyId INTEGER, rdmaType INTEGER, "
		"srcRank INTEGER, dstRank INTEGER, transportType INTEGER, "
		"size INTEGER, dataType INTEGER, linkType INTEGER, opId INTEGER, "
		"isMaster INTEGER, bandwidth NUMERIC" },
	[T_COMMUNICATION_OP] = { "COMMUNICATION_OP", "opName INTEGER, "
		"startNs INTEGER, endNs INTEGER, connectionId INTEGER, "
		"groupName INTEGER, opId INTEGER PRIMARY KEY, relay INTEGER, "
		"retry INTEGER, dataType INTEGER, algType INTEGER, count NUMERIC, "
		"opType INTEGER, deviceId INTEGER, rankSize INTEGER" },
	[T_CANN_API] = { "CANN_API", "startNs INTEGER, endNs INTEGER, "
		"type INTEGER, globalTid INTEGER, "
		"connectionId INTEGER PRIMARY KEY, name INTEGER" },
	[T_TASK_PMU_INFO] = { "TASK_PMU_INFO",
		"globalTaskId INTEGER, name INTEGER, value NUMERIC" },
	[T_MSTX_EVENTS] = { "MSTX_EVENTS", "startNs INTEGER, endNs INTEGER, "
		"eventType INTEGER, rangeId INTEGER, category INTEGER, "
		"message INTEGER, globalTid INTEGER, endGlobalTid INTEGER, "
		"domainId INTEGER, connectionId INTEGER" },
	[T_MEMCPY_INFO] = { "MEMCPY_INFO", "globalTaskId NUMERIC, "
		"size NUMERIC, memcpyOperation NUMERIC" },
	[T_OSRT_API] = { "OSRT_API", "name NUMERIC, globalTid NUMERIC, "
		"startNs NUMERIC, endNs NUMERIC" },
	[T_OVERLAP_ANALYSIS] = { "OVERLAP_ANALYSIS", "id INTEGER PRIMARY KEY, "
		"deviceId INTEGER, startNs NUMERIC, endNs NUMERIC, type INTEGER" },
	{ "ENUM_API_TYPE", ENUM_COLS },
	{ "ENUM_MODULE", ENUM_COLS },
	{ "ENUM_HCCL_DATA_TYPE", ENUM_COLS },
	{ "ENUM_HCCL_LINK_TYPE", ENUM_COLS },
	{ "ENUM_HCCL_TRANSPORT_TYPE", ENUM_COLS },
	{ "ENUM_HCCL_RDMA_TYPE", ENUM_COLS },
	{ "ENUM_MSTX_EVENT_TYPE", ENUM_COLS },
	{ "ENUM_MEMCPY_OPERATION", ENUM_COLS },
	{ "ENUM_OVERLAP_ANALYSIS_TYPE", ENUM_COLS },
};

#define NTABLES (sizeof(tables) / sizeof(tables[0]))

/*
 * The ENUM tables' rows, in table order, as "<id>:<name>" separated by
 * '|' (names hold blanks and slashes); msprof's values (db_constant.h).
 */
static const char *const enums[NTABLES - T_ENUM_FIRST] = {
	"20000:acl|15000:model|10000:node|5500:communication|5000:runtime",
	"0:SLOG|1:IDEDD|2:SCC|3:HCCL|4:FMK|5:CCU|6:DVPP|7:RUNTIME|8:CCE|9:HDC|"
	"10:DRV|11:NET|22:DEVMM|23:KERNEL|24:LIBMEDIA|25:CCECPU|27:ROS|28:HCCP|"
	"29:ROCE|30:TEFUSION|31:PROFILING|32:DP|33:APP|34:TS|35:TSDUMP|"
	"36:AICPU|37:LP|38:TDT|39:FE|40:MD|41:MB|42:ME|43:IMU|44:IMP|45:GE|"
	"47:CAMERA|48:ASCENDCL|49:TEEOS|50:ISP|51:SIS|52:HSM|53:DSS|"
	"54:PROCMGR|55:BBOX|56:AIVECTOR|57:TBE|58:FV|60:TUNE|61:HSS|62:FFTS|"
	"63:OP|64:UDF|65:HICAID|66:TSYNC|67:AUDIO|68:TPRT|69:ASCENDCKERNEL|"
	"70:ASYS|71:ATRACE|72:RTC|73:SYSMONITOR|74:AMP|75:ADETECT|76:MBUFF|"
	"77:CUSTOM",
	"0:INT8|1:INT16|2:INT32|3:FP16|4:FP32|5:INT64|6:UINT64|7:UINT8|"
	"8:UINT16|9:UINT32|10:FP64|11:BFP16|12:INT128|14:HIF8|15:FP8E4M3|"
	"16:FP8E5M2|17:FP8E8M0|255:RESERVED|65534:N/A|65535:INVALID_TYPE",
	"0:ON_CHIP|1:HCCS|2:PCIE|3:ROCE|4:SIO|5:HCCS_SW|6:STANDARD_ROCE|7:UB|"
	"8:UBoE|255:RESERVED|65534:N/A|65535:INVALID_TYPE",
	"0:SDMA|1:RDMA|2:LOCAL|3:UB|4:ROCE|255:RESERVED|65534:N/A|"
	"65535:INVALID_TYPE",
	"0:RDMA_SEND_NOTIFY|1:RDMA_SEND_PAYLOAD|255:RESERVED|65534:N/A|"
	"65535:INVALID_TYPE",
	"0:marker|1:push/pop|2:start/end|3:marker_ex",
	"0:host to host|1:host to device|2:device to host|3:device to device|"
	"4:managed memory|5:addr device to device|6:host to device ex|"
	"7:device to host ex|65535:other",
	"0:COMPUTE|1:COMMUNICATION|2:COMM_NOT_OVERLAP_COMP|3:FREE|65535:RESERVE",
};

#define MEMCPY_OTHER 65535
/* No value: SQL NULL. */
#define DB_NULL INT64_MIN

/*
 * Rows of integers are inserted up to BATCH at a time, by one statement
 * of that many rows: what a statement costs whatever its size (its
 * start, its end, its reset) was most of what an insert of one row cost.
 */
#define BATCH		64

struct batch {
	sqlite3_stmt *st;	/* size rows; prepared at the first full batch */
	int64_t *v;		/* the rows kept, ncols each */
	int nrows;
	int size;		/* BATCH, or fewer where sqlite takes fewer parameters */
	int ncols;
};

struct dbw {
	sqlite3 *db;
	const struct profdata *p;
	sqlite3_stmt *st[NTABLES];
	struct batch b[NTABLES];
	struct strtab strs;
	int64_t pid_hi;		/* globalTid's high half */
	struct copy_calls copies;
	int64_t overlap_id;
};

/* An error of sqlite's as -errno, for the one message at the edge. */
int db_err(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
		return -EACCES;
	}
	return -EIO;
}

static int exec(struct dbw *w, const char *sql)
{
	int rc = sqlite3_exec(w->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_err(rc);
}

static int str_id(struct dbw *w, const char *s, int64_t *id)
{
	uint32_t n;
	int err = strtab_intern(&w->strs, s, strlen(s), &n);

	*id = n;
	return err;
}

static int step(sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : db_err(rc);
}

/* Binds n integers (DB_NULL: NULL) to s's parameters from the first. */
static void bind_ints(sqlite3_stmt *s, const int64_t *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i] == DB_NULL)
			sqlite3_bind_null(s, i + 1);
		else
			sqlite3_bind_int64(s, i + 1, v[i]);
}

/* "INSERT INTO <t> VALUES (?,...),..." of a batch's rows. */
static int prepare_batch(struct dbw *w, int t)
{
	const struct batch *b = &w->b[t];
	size_t len = 64 + strlen(tables[t].name) +
		     (size_t)b->size * (2 * (size_t)b->ncols + 2);
	char *sql = malloc(len), *at;
	int i, j, rc;

	if (!sql)
		return -ENOMEM;
	at = sql + snprintf(sql, len, "INSERT INTO %s VALUES ", tables[t].name);
	for (i = 0; i < b->size; i++) {
		*at++ = i ? ',' : ' ';
		*at++ = '(';
		for (j = 0; j < w->b[t].ncols; j++) {
			*at++ = '?';
			*at++ = j + 1 < w->b[t].ncols ? ',' : ')';
		}
	}
	*at = '\0';
	rc = sqlite3_prepare_v2(w->db, sql, -1, &w->b[t].st, NULL);
	free(sql);
	return rc == SQLITE_OK ? 0 : db_err(rc);
}

/* The rows kept for table t into it: a full batch at once, else one by one. */
static int flush(struct dbw *w, int t)
{
	struct batch *b = &w->b[t];
	int i, n = b->nrows, err = 0;

	b->nrows = 0;
	if (n == b->size && n > 1) {
		err = b->st ? 0 : prepare_batch(w, t);
		if (!err)
			bind_ints(b->st, b->v, n * b->ncols);
		return err ?: step(b->st);
	}
	for (i = 0; i < n && !err; i++) {
		bind_ints(w->st[t], b->v + i * b->ncols, b->ncols);
		err = step(w->st[t]);
	}
	return err;
}

/* The rows every table still keeps. */
static int flush_all(struct dbw *w)
{
	size_t t;
	int err = 0;

	for (t = 0; t < NTABLES && !err; t++)
		err = flush(w, (int)t);
	return err;
}

/* A row of integers (DB_NULL: NULL) into table t, kept for its batch. */
static int row(struct dbw *w, int t, const int64_t *v, int n)
{
	struct batch *b = &w->b[t];

	if (n != b->ncols)
		return -EINVAL;	/* a writer out of step with the table */
	if (!b->v) {
		b->v = malloc(sizeof(*b->v) * (size_t)b->size * (size_t)n);
		if (!b->v)
			return -ENOMEM;
	}
	memcpy(b->v + b->nrows * n, v, sizeof(*v) * (size_t)n);
	return ++b->nrows == b->size ? flush(w, t) : 0;
}

/* A row of two columns, each an integer (text NULL) or a text. */
static int row2(struct dbw *w, int t, int64_t a, const char *at,
		const char *b)
{
	sqlite3_stmt *s = w->st[t];

	if (at)
		sqlite3_bind_text(s, 1, at, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(s, 1, a);
	sqlite3_bind_text(s, 2, b, -1, SQLITE_STATIC);
	return step(s);
}

static int create_tables(struct dbw *w)
{
	/* Parameters a statement may have: 32766 since sqlite 3.32, 999 before. */
	int vars = sqlite3_limit(w->db, SQLITE_LIMIT_VARIABLE_NUMBER, -1);
	char sql[1024], marks[64];
	size_t i, j, n;
	int err, rc;

	for (i = 0; i < NTABLES; i++) {
		const char *c = tables[i].cols;

		snprintf(sql, sizeof(sql), "CREATE TABLE %s (%s)",
			 tables[i].name, c);
		err = exec(w, sql);
		if (err)
			return err;
		for (n = 1; *c; c++)
			n += *c == ',';
		w->b[i].ncols = (int)n;
		w->b[i].size = BATCH * (int)n <= vars ? BATCH :
			       (int)n <= vars ? vars / (int)n : 1;
		for (j = 0; j < n; j++)
			memcpy(marks + 2 * j, "?,", 2);
		marks[2 * n - 1] = 0;	/* the last comma */
		snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES (%s)",
			 tables[i].name, marks);
		rc = sqlite3_prepare_v2(w->db, sql, -1, &w->st[i], NULL);
		if (rc != SQLITE_OK)
			return db_err(rc);
	}
	return 0;
}

static int write_enums(struct dbw *w)
{
	char name[64];
	size_t i;
	int err;

	for (i = 0; i < NTABLES - T_ENUM_FIRST; i++) {
		const char *at = enums[i];

		while (*at) {
			char *end;
			long id = strtol(at, &end, 10);
			size_t n = strcspn(end + 1, "|");

			snprintf(name, sizeof(name), "%.*s", (int)n, end + 1);
			err = row2(w, (int)(T_ENUM_FIRST + i), id, NULL, name);
			if (err)
				return err;
			at = end + 1 + n + (end[1 + n] == '|');
		}
	}
	return 0;
}

static int64_t epoch(const struct dbw *w, uint64_t mono_ns)
{
	return (int64_t)profmeta_epoch_ns(&w->p->meta, mono_ns);
}

/* What the window is: metadata, its time, its host and devices. */
static int write_session(struct dbw *w)
{
	static const char *const meta[][2] = {
		{ "SCHEMA_VERSION", "1.2.0" }, { "SCHEMA_VERSION_MAJOR", "1" },
		{ "SCHEMA_VERSION_MINOR", "2" }, { "SCHEMA_VERSION_MICRO", "0" },
	};
	const struct profmeta *m = &w->p->meta;
	int64_t v[2];
	size_t i;
	int err = 0;

	for (i = 0; i < 4 && !err; i++)
		err = row2(w, T_META_DATA, 0, meta[i][0], meta[i][1]);
	v[0] = epoch(w, m->start.mono_ns);
	/* msprof's rule for a window without end_info: 30 minutes. */
	v[1] = m->end.mono_ns ? epoch(w, m->end.mono_ns) :
	       v[0] + 30 * 60 * 1000000000ll;
	err = err ?: row(w, T_SESSION_TIME_INFO, v, 2);
	err = err ?: row2(w, T_HOST_INFO, 0, *m->host_uid ? m->host_uid : "0",
			  m->hostname);
	for (i = 0; i < w->p->ntasks && !err; i++) {
		const struct devtask *t = &w->p->tasks[i];

		if (i && t->device == w->p->tasks[i - 1].device)
			continue;
		/*
		 * The chip the simulated device declares (platform_version
		 * 5); a CUDA device is said to be one.
		 */
		err = row2(w, T_NPU_INFO, t->device, NULL,
			   profdata_task_op(w->p, t)->type != DT_KERNEL ?
			   "Ascend910B" : "CUDA");
		v[0] = m->rank_id;
		v[1] = t->device;
		err = err ?: row(w, T_RANK_DEVICE_MAP, v, 2);
	}
	return err;
}

/* A compute task's COMPUTE_TASK_INFO row: what its op launch said. */
static int write_compute(struct dbw *w, const struct devtask *t, size_t id,
			 const char *type)
{
	/* msprof's order of the tensor columns, from the model's. */
	static const uint8_t tensor[] = {
		SHAPE_IN_FORMATS, SHAPE_IN_TYPES, SHAPE_IN,
		SHAPE_OUT_FORMATS, SHAPE_OUT_TYPES, SHAPE_OUT,
	};
	const struct profdata *p = w->p;
	const struct devop *op = profdata_task_op(p, t);
	int64_t v[17];
	size_t j;
	int err;

	err = str_id(w, naming_devtask_name(p, t), &v[0]);
	v[1] = (int64_t)id;
	v[2] = op->block_dim;
	v[3] = (int64_t)op->block_dim * op->mix_ratio;
	err = err ?: str_id(w, type, &v[4]);
	err = err ?: str_id(w, naming_str(p, naming_op_type(op)), &v[5]);
	for (j = 0; j < sizeof(tensor) && !err; j++)
		err = str_id(w, naming_str(p, op->shapes[tensor[j]]), &v[6 + j]);
	err = err ?: str_id(w, "N/A", &v[12]);	/* attrInfo: not reported */
	err = err ?: str_id(w, naming_op_state(op), &v[13]);
	err = err ?: str_id(w, op->hf32 == 2 ? "N/A" : op->hf32 ? "YES" : "NO",
			    &v[14]);
	v[15] = 0;	/* gridDim, blockDim: SIMT only */
	v[16] = 0;
	return err ?: row(w, T_COMPUTE_TASK_INFO, v, 17);
}

/*
 * A copy's MEMCPY_INFO row: the runtime's memcpy_info, else the arguments
 * of our call that made it (write_memcpys, once that call is walked), else
 * not known (a copy launched before the window).
 */
static int write_copy(struct dbw *w, const struct devtask *t, size_t id)
{
	const struct task_copy *c = profdata_copy(w->p, t);

	if (c)
		return row(w, T_MEMCPY_INFO, (int64_t[]){ (int64_t)id,
			   (int64_t)c->bytes, c->kind <= 7 ? c->kind : MEMCPY_OTHER }, 3);
	if (copy_calls_find(&w->copies, t->conn))
		return 0;
	return row(w, T_MEMCPY_INFO, (int64_t[]){ (int64_t)id, DB_NULL,
		   MEMCPY_OTHER }, 3);
}

/*
 * Device tasks: TASK, and COMPUTE_TASK_INFO or MEMCPY_INFO; a collective's
 * are COMMUNICATION_TASK_INFO's (write_comm).
 */
static int write_tasks(struct dbw *w)
{
	const struct profdata *p = w->p;
	int64_t v[11];
	size_t i;
	int err = 0;

	err = copy_calls_load(&w->copies, p);
	for (i = 0; i < p->ntasks && !err; i++) {
		const struct devtask *t = &p->tasks[i];
		const char *type = naming_devtask_type(p, t);

		v[0] = epoch(w, t->start_ns);
		v[1] = epoch(w, t->end_ns);
		v[2] = t->device;
		v[3] = t->conn ? (int64_t)t->conn : DB_NULL;
		v[4] = (int64_t)i;
		v[5] = p->meta.pid;
		err = str_id(w, type, &v[6]);
		v[7] = 0;	/* contextId: no sub-tasks */
		v[8] = t->stream;
		v[9] = t->task_id;
		v[10] = 0;	/* modelId: no graphs */
		err = err ?: row(w, T_TASK, v, 11);
		if (err || comm_cann_task(p, t))
			continue;
		if (devop_is_copy(profdata_task_op(p, t)))
			err = write_copy(w, t, i);
		else if (overlap_is_compute(p, t))
			err = write_compute(w, t, i, type);
	}
	return err;
}

#define HCCL_NA		65534	/* ENUM_HCCL_*'s N/A */
#define HCCL_LOCAL	2	/* ENUM_HCCL_TRANSPORT_TYPE: shared memory */

/* A collective: its COMMUNICATION_OP row. */
static int write_comm_op(struct dbw *w, const struct comm_op *op, size_t id)
{
	const struct devtask *t = &w->p->tasks[op->task];
	int64_t dtype = op->data_type == COMM_UNKNOWN ? HCCL_NA : op->data_type;
	char name[MSPROF_REC_NAMES_MAX + 64], group[256];
	int64_t v[14];
	int err;

	comm_op_name(name, sizeof(name), w->p, op);
	comm_group_name(group, sizeof(group), w->p, op);
	err = str_id(w, name, &v[0]);
	v[1] = epoch(w, op->start_ns);
	v[2] = epoch(w, op->end_ns);
	v[3] = op->conn ? (int64_t)op->conn : DB_NULL;
	err = err ?: str_id(w, group, &v[4]);
	v[5] = (int64_t)id;
	v[6] = 0;	/* relay */
	v[7] = 0;	/* retry */
	v[8] = dtype;
	err = err ?: str_id(w, "N/A", &v[9]);	/* algType */
	v[10] = op->count ? (int64_t)op->count : DB_NULL;
	err = err ?: str_id(w, comm_op_type(w->p, op), &v[11]);
	v[12] = t->device;
	v[13] = op->rank_size;	/* 0: the communicator's size is not recorded */
	return err ?: row(w, T_COMMUNICATION_OP, v, 14);
}

/* A task of a collective as hccl_info tells it (raw), or the op's one. */
static int write_comm_task(struct dbw *w, const struct comm_op *op, size_t id,
			   size_t task)
{
	const struct devtask *t = &w->p->tasks[task];
	const struct task_hccl *x = op->raw ? profdata_hccl(w->p, t) : NULL;
	uint64_t dur = t->end_ns > t->start_ns ? t->end_ns - t->start_ns : 0;
	uint64_t bytes = x ? x->bytes : op->count ? comm_op_bytes(op) : 0;
	char group[256];
	int64_t v[16];
	int err;

	comm_group_name(group, sizeof(group), w->p, op);
	/* name is the op's, as msprof's; the plane is the task's. */
	err = str_id(w, x ? strtab_str(&w->p->names, x->name) :
		     naming_devtask_name(w->p, t), &v[0]);
	v[1] = (int64_t)task;
	err = err ?: str_id(w, naming_devtask_name(w->p, t), &v[2]);
	v[3] = x ? x->plane : 0;
	err = err ?: str_id(w, group, &v[4]);
	v[5] = x ? (int64_t)x->notify_id : -1;	/* none: msprof's UINT64_MAX */
	v[6] = HCCL_NA;	/* rdmaType */
	v[7] = x ? (int64_t)x->local_rank : w->p->meta.rank_id;	/* srcRank */
	v[8] = x ? x->remote_rank : UINT32_MAX;	/* dstRank: every rank */
	v[9] = x ? x->transport_type : HCCL_LOCAL;
	v[10] = x || op->count ? (int64_t)bytes : DB_NULL;
	v[11] = x ? x->data_type : op->data_type == COMM_UNKNOWN ? HCCL_NA : op->data_type;
	v[12] = x ? x->link_type : HCCL_NA;
	v[13] = (int64_t)id;
	v[14] = 1;	/* isMaster: master tasks are all a runtime reports */
	/* bandwidth: B/s, as msprof stores it (GB/s · 1e9). */
	v[15] = dur ? (int64_t)(bytes * 1000000000ull / dur) : 0;
	return err ?: row(w, T_COMM_TASK, v, 16);
}

/*
 * COMMUNICATION_OP and COMMUNICATION_TASK_INFO.  The schedule tasks
 * (COMMUNICATION_SCHEDULE_TASK_INFO) are the AI CPU's kernels that run a
 * collective's tasks on real chips; a simulated collective has none.
 */
static int write_comm(struct dbw *w)
{
	struct comm_ops c;
	size_t i;
	int err = comm_ops_load(&c, w->p);

	for (i = 0; i < c.n && !err; i++) {
		size_t k;

		err = write_comm_op(w, &c.v[i], i);
		for (k = 0; k < c.v[i].ntasks && !err; k++)
			err = write_comm_task(w, &c.v[i], i, c.tasks[c.v[i].first + k]);
	}
	comm_ops_free(&c);
	return err;
}

/* MEMCPY_INFO of the memcpy tasks that call made, from its arguments. */
static int write_memcpys(struct dbw *w, const struct api_desc *d,
			 const struct msprof_api_event *e, uint64_t conn)
{
	struct copy_call *m;
	int64_t v[3];
	size_t i, n;
	int err = 0;

	m = copy_calls_note(&w->copies, d, e, conn, &n);
	for (i = 0; i < n && !err; i++) {
		/* A collective's copy is COMMUNICATION_TASK_INFO's. */
		if (comm_cann_task(w->p, &w->p->tasks[m[i].task]))
			continue;
		v[0] = (int64_t)m[i].task;
		v[1] = m[i].has_bytes && (int64_t)m[i].bytes >= 0 ?
		       (int64_t)m[i].bytes : DB_NULL;
		/* aclrtMemcpyKind and cudaMemcpyKind agree on 0..3, the enum's. */
		v[2] = m[i].has_kind && m[i].kind <= 3 ? (int64_t)m[i].kind :
		       MEMCPY_OTHER;
		err = row(w, T_MEMCPY_INFO, v, 3);
	}
	return err;
}

static int write_api(const struct msprof_api_event *e, uint64_t conn, void *ctx)
{
	struct dbw *w = ctx;
	const struct api_desc *d = profdata_desc(w->p, e->api_id);
	int64_t v[6];
	int err;

	v[0] = epoch(w, e->start_ns);
	v[1] = epoch(w, e->end_ns);
	v[2] = naming_layer(d ? d->layer : UINT32_MAX)->level_id;
	v[3] = w->pid_hi | e->ns_tid;	/* the timeline's CANN thread */
	v[4] = (int64_t)conn;
	err = str_id(w, d && d->name ? d->name : "unknown_api", &v[5]);
	err = err ?: row(w, T_CANN_API, v, 6);
	if (!err && w->copies.n)
		err = write_memcpys(w, d, e, conn);
	return err;
}

/*
 * A call only the runtime reported: the row of the timeline's slice of it,
 * by its level's number and msprof's name, on its thread of the CANN
 * process.  One eBPF recorded too is ours (write_api).
 */
static int write_cann_call(const struct cann_call *c, void *ctx)
{
	struct dbw *w = ctx;
	char num[CANN_NUM_LEN];
	int64_t v[6];
	int err;

	if (c->seen)
		return 0;
	v[0] = epoch(w, c->begin_ns);
	v[1] = epoch(w, c->end_ns);
	v[2] = c->level;
	v[3] = w->pid_hi | c->tid;
	v[4] = (int64_t)c->conn;
	err = str_id(w, cann_call_name(c, num), &v[5]);
	return err ?: row(w, T_CANN_API, v, 6);
}

static int write_ioctl(const struct msprof_ioctl_payload_event *pe, void *ctx)
{
	struct dbw *w = ctx;
	int64_t v[4];
	int err;

	err = str_id(w, "ioctl", &v[0]);
	v[1] = w->pid_hi | pe->io.tid;
	v[2] = epoch(w, pe->io.start_ns);
	v[3] = epoch(w, pe->io.end_ns);
	return err ?: row(w, T_OSRT_API, v, 4);
}

static int write_overlap(uint32_t device, enum overlap_kind kind,
			 uint64_t start_ns, uint64_t end_ns, void *ctx)
{
	struct dbw *w = ctx;
	int64_t v[5] = { w->overlap_id++, device, epoch(w, start_ns),
			 epoch(w, end_ns), kind };

	return row(w, T_OVERLAP_ANALYSIS, v, 5);
}

static int write_strings(struct dbw *w)
{
	uint32_t i;
	int err = 0;

	for (i = 0; i < w->strs.n && !err; i++)
		err = row2(w, T_STRING_IDS, i, NULL, strtab_str(&w->strs, i));
	return err;
}

/*
 * Every table, in one transaction.  No file but the db itself: the
 * journal and sorts stay in memory (a failed db is removed whole, not
 * rolled back), and db_write's fsync makes it durable before the rename.
 * TASK's index is made with the table, so that it grows with the rows:
 * made after them, it sorted them all in memory (17 MiB a million).
 */
static int fill(struct dbw *w)
{
	int err;

	err = exec(w, "PRAGMA journal_mode=MEMORY") ?:
	      exec(w, "PRAGMA synchronous=OFF") ?:
	      exec(w, "PRAGMA temp_store=MEMORY") ?:
	      exec(w, "BEGIN") ?:
	      create_tables(w) ?:
	      exec(w, "CREATE INDEX TaskIndex ON TASK (startNs, globalTaskId)") ?:
	      write_enums(w) ?:
	      write_session(w) ?:
	      write_tasks(w) ?:
	      write_comm(w) ?:
	      profdata_each_host(w->p, write_api, write_ioctl, w) ?:
	      cann_each_call(w->p, write_cann_call, w) ?:
	      overlap_each(w->p, write_overlap, w) ?:
	      write_strings(w) ?:
	      flush_all(w);
	return err ?: exec(w, "COMMIT");
}

/*
 * SQLite would resolve the links of the name it is given into a path and
 * open that: ours, /proc/self/fd/<dir>/<name>, goes through the
 * directory we hold, which only the kernel may resolve.
 */
static int name_as_given(sqlite3_vfs *vfs, const char *name, int len,
			 char *out)
{
	(void)vfs;
	if (strlen(name) >= (size_t)len)
		return SQLITE_CANTOPEN;
	strcpy(out, name);
	return SQLITE_OK;
}

int db_open_at(int dirfd, const char *tmp, struct db_handle *h)
{
	char path[64 + NAME_MAX];
	int rc;

	h->vfs = *sqlite3_vfs_find(NULL);
	h->vfs.zName = "msprof-as-given";
	h->vfs.xFullPathname = name_as_given;
	h->db = NULL;
	rc = sqlite3_vfs_register(&h->vfs, 0);
	if (rc != SQLITE_OK)
		return db_err(rc);
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dirfd, tmp);
	rc = sqlite3_open_v2(path, &h->db, SQLITE_OPEN_READWRITE |
			     SQLITE_OPEN_NOFOLLOW |
			     SQLITE_OPEN_NOMUTEX, h->vfs.zName);
	if (rc != SQLITE_OK) {
		db_close(h);
		return db_err(rc);
	}
	return 0;
}

int db_close(struct db_handle *h)
{
	int err = sqlite3_close(h->db) != SQLITE_OK ? -EIO : 0;

	sqlite3_vfs_unregister(&h->vfs);
	h->db = NULL;
	return err;
}

/* Fills the empty file tmp (in dirfd) as the db. */
static int write_db(int dirfd, const char *tmp, const struct profdata *p)
{
	struct dbw w = { .p = p, .pid_hi = (int64_t)((uint64_t)(uint32_t)p->meta.pid << 32) };
	struct db_handle h;
	size_t i;
	int err;

	err = db_open_at(dirfd, tmp, &h);
	if (err)
		return err;
	w.db = h.db;
	err = fill(&w);
	for (i = 0; i < NTABLES; i++) {
		sqlite3_finalize(w.st[i]);
		sqlite3_finalize(w.b[i].st);
		free(w.b[i].v);
	}
	if (db_close(&h) && !err)
		err = -EIO;
	strtab_free(&w.strs);
	copy_calls_free(&w.copies);
	return err;
}

/* msprof_<14 digits>.db */
static bool is_db_name(const char *name)
{
	return !strncmp(name, "msprof_", 7) &&
	       strspn(name + 7, "0123456789") == 14 && !strcmp(name + 21, ".db");
}

struct stale_db {
	const char *keep;
	bool checked;
};

static int remove_one(int dirfd, const char *name, void *ctx)
{
	struct stale_db *s = ctx;
	int err;

	if (!is_db_name(name) || (s->keep && !strcmp(name, s->keep)))
		return 0;
	/* Only in a directory of ours, where nothing here is followed. */
	if (!s->checked) {
		err = fsutil_dir_check_ours(dirfd);
		if (err)
			return err;
		s->checked = true;
	}
	if (unlinkat(dirfd, name, 0) && errno != ENOENT)
		return -errno;
	return 0;
}

int db_remove_stale(int dirfd, const char *keep)
{
	struct stale_db s = { keep, false };

	return fsutil_dir_for_each(dirfd, remove_one, &s);
}

int db_write(int dirfd, const char *label, const struct profdata *p,
	     struct db_file *f)
{
	time_t now = time(NULL);
	struct tm tm;
	int fd, err;

	localtime_r(&now, &tm);
	strftime(f->name, sizeof(f->name), "msprof_%Y%m%d%H%M%S.db", &tm);
	err = fsutil_dir_check_ours(dirfd);
	if (err) {
		ERR("%s: no db written: the directory belongs to another user or others can write it: refused",
		    label);
		return err;
	}
	fd = fsutil_create_temp_at(dirfd, f->name, f->tmp, sizeof(f->tmp));
	if (fd < 0) {
		ERR("%s: cannot create %s: %s", label, f->name, strerror(-fd));
		return fd;
	}
	err = write_db(dirfd, f->tmp, p);
	if (!err && fsync(fd))
		err = -errno;
	close(fd);
	if (err) {
		unlinkat(dirfd, f->tmp, 0);
		ERR("%s: cannot write %s: %s", label, f->name, strerror(-err));
	}
	return err;
}

int db_commit(int dirfd, const char *label, const struct db_file *f)
{
	int err;

	testpoint("db-before-rename");
	if (renameat(dirfd, f->tmp, dirfd, f->name)) {
		err = -errno;
		unlinkat(dirfd, f->tmp, 0);
		ERR("%s: cannot write %s: %s", label, f->name, strerror(-err));
		return err;
	}
	printf("%s/%s\n", label, f->name);
	err = db_remove_stale(dirfd, f->name);
	if (err)
		ERR("%s: an earlier export's db is left: %s",
		    label, strerror(-err));
	return 0;
}

void db_discard(int dirfd, const struct db_file *f)
{
	unlinkat(dirfd, f->tmp, 0);
}
