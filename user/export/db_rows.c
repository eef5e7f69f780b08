// SPDX-License-Identifier: MIT
/*
 * The window's rows, table by table: the session, the device tasks and
 * what each is (compute, copy), the collectives, the API calls (ours and
 * the runtime's), ioctls, the overlap analysis and the strings they name.
 */
#include <stdlib.h>
#include <string.h>

#include "cann.h"
#include "comm.h"
#include "db_parts.h"
#include "naming.h"
#include "osrt.h"
#include "overlap.h"

#define MEMCPY_OTHER 65535

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
		err = db_row2(w, T_META_DATA, 0, meta[i][0], meta[i][1]);
	v[0] = epoch(w, m->start.mono_ns);
	/* msprof's rule for a window without end_info: 30 minutes. */
	v[1] = m->end.mono_ns ? epoch(w, m->end.mono_ns) :
	       v[0] + 30 * 60 * 1000000000ll;
	err = err ?: db_row(w, T_SESSION_TIME_INFO, v, 2);
	err = err ?: db_row2(w, T_HOST_INFO, 0, *m->host_uid ? m->host_uid : "0",
			     m->hostname);
	for (i = 0; i < w->p->ntasks && !err; i++) {
		const struct devtask *t = &w->p->tasks[i];

		if (i && t->device == w->p->tasks[i - 1].device)
			continue;
		/*
		 * The chip the simulated device declares (platform_version
		 * 5); a CUDA device is said to be one.
		 */
		err = db_row2(w, T_NPU_INFO, t->device, NULL,
			      profdata_task_op(w->p, t)->type != DT_KERNEL ?
			      "Ascend910B" : "CUDA");
		v[0] = m->rank_id;
		v[1] = t->device;
		err = err ?: db_row(w, T_RANK_DEVICE_MAP, v, 2);
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

	err = db_str_id(w, naming_devtask_name(p, t), &v[0]);
	v[1] = (int64_t)id;
	v[2] = op->block_dim;
	v[3] = (int64_t)op->block_dim * op->mix_ratio;
	err = err ?: db_str_id(w, type, &v[4]);
	err = err ?: db_str_id(w, naming_str(p, naming_op_type(op)), &v[5]);
	for (j = 0; j < sizeof(tensor) && !err; j++)
		err = db_str_id(w, naming_str(p, op->shapes[tensor[j]]), &v[6 + j]);
	err = err ?: db_str_id(w, "N/A", &v[12]);	/* attrInfo: not reported */
	err = err ?: db_str_id(w, naming_op_state(op), &v[13]);
	err = err ?: db_str_id(w, op->hf32 == 2 ? "N/A" : op->hf32 ? "YES" : "NO",
			       &v[14]);
	v[15] = 0;	/* gridDim, blockDim: SIMT only */
	v[16] = 0;
	return err ?: db_row(w, T_COMPUTE_TASK_INFO, v, 17);
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
		return db_row(w, T_MEMCPY_INFO, (int64_t[]){ (int64_t)id,
			      (int64_t)c->bytes, c->kind <= 7 ? c->kind : MEMCPY_OTHER }, 3);
	if (copy_calls_find(&w->copies, t->conn))
		return 0;
	return db_row(w, T_MEMCPY_INFO, (int64_t[]){ (int64_t)id, DB_NULL,
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
		err = db_str_id(w, type, &v[6]);
		v[7] = 0;	/* contextId: no sub-tasks */
		v[8] = t->stream;
		v[9] = t->task_id;
		v[10] = 0;	/* modelId: no graphs */
		err = err ?: db_row(w, T_TASK, v, 11);
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
	err = db_str_id(w, name, &v[0]);
	v[1] = epoch(w, op->start_ns);
	v[2] = epoch(w, op->end_ns);
	v[3] = op->conn ? (int64_t)op->conn : DB_NULL;
	err = err ?: db_str_id(w, group, &v[4]);
	v[5] = (int64_t)id;
	v[6] = 0;	/* relay */
	v[7] = 0;	/* retry */
	v[8] = dtype;
	err = err ?: db_str_id(w, "N/A", &v[9]);	/* algType */
	v[10] = op->count ? (int64_t)op->count : DB_NULL;
	err = err ?: db_str_id(w, comm_op_type(w->p, op), &v[11]);
	v[12] = t->device;
	v[13] = op->rank_size;	/* 0: the communicator's size is not recorded */
	return err ?: db_row(w, T_COMMUNICATION_OP, v, 14);
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
	err = db_str_id(w, x ? strtab_str(&w->p->names, x->name) :
			naming_devtask_name(w->p, t), &v[0]);
	v[1] = (int64_t)task;
	err = err ?: db_str_id(w, naming_devtask_name(w->p, t), &v[2]);
	v[3] = x ? x->plane : 0;
	err = err ?: db_str_id(w, group, &v[4]);
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
	return err ?: db_row(w, T_COMM_TASK, v, 16);
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
		err = db_row(w, T_MEMCPY_INFO, v, 3);
	}
	return err;
}

static int write_api(const struct msprof_api_event *e, uint64_t conn, void *ctx)
{
	struct dbw *w = ctx;
	const struct api_desc *d = profdata_desc(w->p, e->api_id);
	const struct profcall *c = profdata_call(w->p, conn);
	int64_t v[7];
	int err;

	v[0] = epoch(w, e->start_ns);
	v[1] = epoch(w, e->end_ns);
	v[2] = naming_layer(d ? d->layer : UINT32_MAX)->level_id;
	v[3] = w->pid_hi | e->ns_tid;	/* the timeline's CANN thread */
	v[4] = (int64_t)conn;
	/* PYTORCH_CALLCHAINS' id, as torch_npu's db joins them */
	v[6] = c && c->stack ? (int64_t)c->stack : DB_NULL;
	err = db_str_id(w, d && d->name ? d->name : "unknown_api", &v[5]);
	err = err ?: db_row(w, T_CANN_API, v, 7);
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
	int64_t v[7];
	int err;

	if (c->ours)
		return 0;
	v[6] = DB_NULL;		/* no stack: only the runtime saw the call */
	v[0] = epoch(w, c->begin_ns);
	v[1] = epoch(w, c->end_ns);
	v[2] = c->level;
	v[3] = w->pid_hi | c->tid;
	v[4] = (int64_t)c->conn;
	err = db_str_id(w, cann_call_name(c, num), &v[5]);
	return err ?: db_row(w, T_CANN_API, v, 7);
}

static int write_ioctl(const struct msprof_ioctl_payload_event *pe, void *ctx)
{
	struct dbw *w = ctx;
	int64_t v[4];
	int err;

	err = db_str_id(w, "ioctl", &v[0]);
	v[1] = w->pid_hi | osrt_ns_tid(w->p->osrt, pe->io.tid);
	v[2] = epoch(w, pe->io.start_ns);
	v[3] = epoch(w, pe->io.end_ns);
	return err ?: db_row(w, T_OSRT_API, v, 4);
}

static int write_overlap(uint32_t device, enum overlap_kind kind,
			 uint64_t start_ns, uint64_t end_ns, void *ctx)
{
	struct dbw *w = ctx;
	int64_t v[5] = { w->overlap_id++, device, epoch(w, start_ns),
			 epoch(w, end_ns), kind };

	return db_row(w, T_OVERLAP_ANALYSIS, v, 5);
}

static int write_strings(struct dbw *w)
{
	uint32_t i;
	int err = 0;

	for (i = 0; i < w->strs.n && !err; i++)
		err = db_row2(w, T_STRING_IDS, i, NULL, strtab_str(&w->strs, i));
	return err;
}

/*
 * Each distinct Python stack, a row a frame ("file(line): func", depth 0
 * innermost), as torch_npu splits its "Call stack"; a cut stack's last
 * element is "...", as the timeline's.
 */
static int write_callchains(struct dbw *w)
{
	const struct pystacks *py = &w->p->py;
	int64_t v[3];
	uint32_t text;
	size_t chain, i;
	int err = 0;

	for (chain = 1; chain < py->nchains && !err; chain++) {
		v[0] = (int64_t)chain;
		for (i = 0; !err && pystacks_frame(py, (uint32_t)chain, i, &text); i++) {
			v[2] = (int64_t)i;
			err = db_str_id(w, strtab_str(&py->text, text), &v[1]) ?:
			      db_row(w, T_PYTORCH_CALLCHAINS, v, 3);
		}
		if (!err && py->chains[chain].cut) {
			v[2] = (int64_t)i;
			err = db_str_id(w, "...", &v[1]) ?:
			      db_row(w, T_PYTORCH_CALLCHAINS, v, 3);
		}
	}
	return err;
}

int db_window_rows(struct dbw *w)
{
	return write_session(w) ?:
	       write_tasks(w) ?:
	       write_comm(w) ?:
	       profdata_each_host(w->p, write_api, write_ioctl, w) ?:
	       cann_each_call(w->p, write_cann_call, w) ?:
	       overlap_each(w->p, write_overlap, w) ?:
	       db_mstx_rows(w) ?:
	       db_hostsys_rows(w) ?:
	       db_tstate_rows(w) ?:
	       db_osrt_rows(w) ?:
	       write_callchains(w) ?:
	       write_strings(w);
}
