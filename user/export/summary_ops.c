// SPDX-License-Identifier: MIT
/* op_summary, op_statistic and task_time: the device tasks of a window. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "common/keyhash.h"
#include "naming.h"
#include "overlap.h"
#include "summary.h"
#include "summary_csv.h"

/*
 * What our device records cannot tell (no graph engine reports shapes or
 * formats, no PMU counts cycles): msprof's own word for an unknown cell.
 */
#define NA "N/A"
/* The Model ID of a task launched outside any model (UINT32_MAX). */
#define NO_MODEL "4294967295"

static uint64_t epoch(const struct profdata *p, uint64_t mono_ns)
{
	return profmeta_epoch_ns(&p->meta, mono_ns);
}

/* On the epoch scale, as msprof takes a task's end and start, and as the timeline's dur is. */
static uint64_t duration(const struct profdata *p, const struct devtask *t)
{
	return t->end_ns > t->start_ns ? epoch(p, t->end_ns) - epoch(p, t->start_ns) : 0;
}

/*
 * The gap since the device's previous task ended, or 0 for its first, from
 * the cells as printed (epoch starts, durations), as msprof computes it;
 * msprof prints this one cell with std::to_string(), six decimals.
 */
/* A row's span, for the next row's wait. */
struct row_span {
	bool any;
	uint32_t device;
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC */
};

static uint64_t span_duration(const struct profdata *p, const struct row_span *r)
{
	return r->end_ns > r->start_ns ? epoch(p, r->end_ns) - epoch(p, r->start_ns) : 0;
}

static void wait_time(FILE *fp, const struct profdata *p,
		      const struct row_span *r, const struct row_span *prev)
{
	uint64_t start, prev_end;

	fputc(',', fp);
	if (!prev->any || prev->device != r->device) {
		fputc('0', fp);
		return;
	}
	start = epoch(p, r->start_ns);
	prev_end = epoch(p, prev->start_ns) + span_duration(p, prev);
	csv_us(fp, start > prev_end ? start - prev_end : 0);
	fputs("000", fp);
}

/*
 * The PMU columns msprof writes on Ascend910B with its default AI Core
 * metrics (PipeUtilization), aic_ and aiv_ halves; a task without PMU
 * samples gets N/A in each, as msprof gives one it cannot match.  npusim
 * has no PMU, so every row is such a task.  msprof-analyze's advisor
 * looks for these columns by name (its fusible-operator checker).
 */
static const char *const pmu_columns[] = {
	"aicore_time(us)", "aic_total_cycles", "aic_mac_time(us)", "aic_mac_ratio",
	"aic_scalar_time(us)", "aic_scalar_ratio", "aic_mte1_time(us)",
	"aic_mte1_ratio", "aic_mte2_time(us)", "aic_mte2_ratio",
	"aic_fixpipe_time(us)", "aic_fixpipe_ratio", "aic_icache_miss_rate",
	"aiv_time(us)", "aiv_total_cycles", "aiv_vec_time(us)", "aiv_vec_ratio",
	"aiv_scalar_time(us)", "aiv_scalar_ratio", "aiv_mte2_time(us)",
	"aiv_mte2_ratio", "aiv_mte3_time(us)", "aiv_mte3_ratio",
	"aiv_icache_miss_rate", "cube_utilization(%)",
};

#define NPMU (sizeof(pmu_columns) / sizeof(pmu_columns[0]))

/*
 * The header of a STARS chip (Ascend910B, the platform_version "5" our
 * info.json declares), which keeps Mix Block Num, Context ID and the aiv_
 * columns.
 */
static void op_summary_header(FILE *fp)
{
	size_t i;

	fputs("Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,"
	      "Task Type,Task Start Time(us),Task Duration(us),Task Wait Time(us),"
	      "Block Num,Mix Block Num,HF32 Eligible,Input Shapes,Input Data Types,"
	      "Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID",
	      fp);
	for (i = 0; i < NPMU; i++) {
		fputc(',', fp);
		fputs(pmu_columns[i], fp);
	}
	fputc('\n', fp);
}

/*
 * A runtime's task that is no op (a copy, an event, a notify, one of no
 * task_track): msprof's op_summary leaves it out (§4.4).  npusim's and
 * CUPTI's older records keep every task.
 */
static bool is_op(const struct devop *op)
{
	if (op->sqe == DEVOP_NO_SQE)
		return true;
	return op->type != DT_MEMCPY_ASYNC && op->type != DT_MEMSET &&
	       op->type != DT_OTHER && op->type != DT_UNKNOWN;
}

static void op_summary_row(FILE *fp, const struct profdata *p,
			   const struct devtask *t, struct row_span *prev,
			   const char *tail, size_t ntail)
{
	const struct devop *op = profdata_task_op(p, t);
	/* The op's, even for a collective's tasks the timeline names apart. */
	const char *name = strtab_str(&p->names, op->name);
	const char *type = naming_devtask_type(p, t);
	struct row_span r = { true, t->device, t->start_ns, t->end_ns };
	int i;

	csv_u64(fp, t->device);
	fputs("," NO_MODEL, fp);
	csv_next_u64(fp, t->task_id);
	csv_next_u64(fp, t->stream);
	csv_next_text(fp, name);
	/* An npusim kernel's name is its op type too. */
	csv_next_text(fp, naming_str(p, naming_op_type(op)));
	csv_next_text(fp, naming_op_state(op));
	csv_next_text(fp, op->type == DT_HCCL && op->sqe != DEVOP_NO_SQE ?
		      "COMMUNICATION" : type);
	csv_next_us(fp, epoch(p, t->start_ns));
	csv_time_end(fp);
	csv_next_us(fp, duration(p, t));
	wait_time(fp, p, &r, prev);
	*prev = r;
	csv_next_u64(fp, op->block_dim);
	csv_next_u64(fp, (uint64_t)op->block_dim * op->mix_ratio);
	csv_next_text(fp, op->hf32 == 2 ? NA : op->hf32 ? "YES" : "NO");
	for (i = 0; i < SHAPES; i++)
		csv_next_text(fp, naming_str(p, op->shapes[i]));
	fwrite(tail, 1, ntail, fp);
}

/*
 * A runtime's collective: one row for the op, as msprof's (§4.4), its
 * tasks none of their own: no ids, type COMMUNICATION, the op's span.
 */
static void comm_op_row(FILE *fp, const struct profdata *p, const struct comm_op *op,
			struct row_span *prev, const char *tail, size_t ntail)
{
	struct row_span r = { true, p->tasks[op->task].device, op->start_ns, op->end_ns };
	char name[MSPROF_REC_NAMES_MAX + 64];
	int i;

	comm_op_name(name, sizeof(name), p, op);
	csv_u64(fp, r.device);
	fputs("," NO_MODEL "," NA "," NA, fp);
	csv_next_text(fp, name);
	csv_next_text(fp, comm_op_type(p, op));
	fputs("," NA ",COMMUNICATION", fp);
	csv_next_us(fp, epoch(p, op->start_ns));
	csv_time_end(fp);
	csv_next_us(fp, span_duration(p, &r));
	wait_time(fp, p, &r, prev);
	*prev = r;
	fputs(",0," NA "," NA, fp);	/* Block Num, Mix Block Num, HF32 */
	for (i = 0; i < SHAPES; i++)
		fputs("," NA, fp);
	fwrite(tail, 1, ntail, fp);
}

/* Whether the raw op comes before the task, as rows sorted by device, start. */
static bool op_first(const struct profdata *p, const struct comm_op *op,
		     const struct devtask *t)
{
	uint16_t d = p->tasks[op->task].device;

	return d != t->device ? d < t->device : op->start_ns <= t->start_ns;
}

int summary_op_summary(FILE *fp, const struct profdata *p)
{
	/* The same tail on every row, N/A each: Context ID, the PMU's; the line end. */
	enum { NTAIL = 1 + NPMU };
	char unknown[NTAIL * (sizeof("," NA) - 1) + 2];
	struct row_span prev = { 0 };
	struct comm_ops c;
	size_t i, k = 0, nunknown = 0;
	int err = comm_ops_load(&c, p);

	for (i = 0; i < NTAIL; i++)
		nunknown += (size_t)snprintf(unknown + nunknown, sizeof(unknown) - nunknown,
					     "," NA);
	unknown[nunknown++] = '\n';
	op_summary_header(fp);
	for (i = 0; i < p->ntasks && !err; i++) {
		const struct devtask *t = &p->tasks[i];

		for (; k < c.n && op_first(p, &c.v[k], t); k++)
			if (c.v[k].raw)
				comm_op_row(fp, p, &c.v[k], &prev, unknown, nunknown);
		if (!is_op(profdata_task_op(p, t)) || comm_cann_task(p, t))
			continue;
		op_summary_row(fp, p, t, &prev, unknown, nunknown);
	}
	for (; k < c.n && !err; k++)
		if (c.v[k].raw)
			comm_op_row(fp, p, &c.v[k], &prev, unknown, nunknown);
	comm_ops_free(&c);
	return err ?: ferror(fp) ? -EIO : 0;
}

int summary_task_time(FILE *fp, const struct profdata *p)
{
	size_t i;

	fputs("Device_id,kernel_name,kernel_type,stream_id,task_id,task_time(us),task_start(us),task_stop(us)\n",
	      fp);
	for (i = 0; i < p->ntasks; i++) {
		const struct devtask *t = &p->tasks[i];
		uint64_t start = epoch(p, t->start_ns);

		csv_u64(fp, t->device);
		/* The task's own kernel, not its op (msprof's column). */
		csv_next_text(fp, naming_str(p, profdata_task_op(p, t)->kernel));
		csv_next_text(fp, naming_devtask_type(p, t));
		csv_next_u64(fp, t->stream);
		csv_next_u64(fp, t->task_id);
		csv_next_us(fp, duration(p, t));
		csv_next_us(fp, start);
		csv_time_end(fp);
		csv_next_us(fp, start + duration(p, t));
		csv_time_end(fp);
		fputc('\n', fp);
	}
	return ferror(fp) ? -EIO : 0;
}

/* One op_statistic row: a device's tasks of one OP Type and Core Type. */
struct op_row {
	uint32_t device;
	uint32_t name;		/* OP Type, an id in profdata.names */
	const char *type;	/* Core Type: the task type */
	uint64_t count, total, min, max;	/* ns */
	uint64_t device_total;	/* all the device's tasks, for Ratio */
};

/* Rows found by (device, name, type) through open addressing. */
struct op_table {
	struct op_row *rows;
	size_t n, cap;
	uint32_t *slots;	/* row index + 1; 0 empty */
	size_t nslots;		/* a power of 2, kept over twice n */
	/*
	 * The device numbers and names come from the task's device data:
	 * keyed, so that no choice of them puts every row in one run.
	 */
	struct keyhash_key key;
};

static size_t slot_of(const struct op_table *tb, uint32_t device,
		      uint32_t name, const char *type)
{
	uint32_t words[2] = { device, name };
	size_t h = (size_t)keyhash(&tb->key, words, sizeof(words));
	size_t mask = tb->nslots - 1, i;

	for (i = h & mask;; i = (i + 1) & mask) {
		const struct op_row *r;

		if (!tb->slots[i])
			return i;
		r = &tb->rows[tb->slots[i] - 1];
		if (r->device == device && r->name == name && !strcmp(r->type, type))
			return i;
	}
}

static int grow(struct op_table *tb)
{
	struct op_table bigger = *tb;
	size_t i;
	int err;

	if (!tb->nslots) {
		err = keyhash_key_new(&bigger.key);
		if (err)
			return err;
	}
	bigger.nslots = tb->nslots ? tb->nslots * 2 : 64;
	bigger.cap = bigger.nslots / 2;
	bigger.slots = calloc(bigger.nslots, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -ENOMEM;
	bigger.rows = realloc(tb->rows, bigger.cap * sizeof(*bigger.rows));
	if (!bigger.rows) {
		free(bigger.slots);
		return -ENOMEM;
	}
	for (i = 0; i < tb->n; i++) {
		const struct op_row *r = &bigger.rows[i];

		bigger.slots[slot_of(&bigger, r->device, r->name, r->type)] =
			(uint32_t)i + 1;
	}
	free(tb->slots);
	*tb = bigger;
	return 0;
}

/* Counts d under (device, name, type). */
static int add_entry(struct op_table *tb, uint32_t device, uint32_t name,
		     const char *type, uint64_t d)
{
	struct op_row *r;
	size_t s;
	int err;

	if (tb->n + 1 > tb->cap) {
		err = grow(tb);
		if (err)
			return err;
	}
	s = slot_of(tb, device, name, type);
	if (!tb->slots[s]) {
		r = &tb->rows[tb->n++];
		*r = (struct op_row){ .device = device, .name = name,
				      .type = type, .min = d };
		tb->slots[s] = (uint32_t)tb->n;
	}
	r = &tb->rows[tb->slots[s] - 1];
	if (d < r->min)
		r->min = d;
	if (d > r->max)
		r->max = d;
	r->count++;
	r->total += d;
	return 0;
}

static int add_task(struct op_table *tb, const struct profdata *p,
		    const struct devtask *t)
{
	return add_entry(tb, t->device, naming_op_type(profdata_task_op(p, t)),
			 naming_devtask_type(p, t), duration(p, t));
}

/*
 * msprof's order: by total time, descending; rows of equal totals in the
 * order its aggregation keeps them (device, OP Type, Core Type).
 */
static int by_total(const void *a, const void *b, void *ctx)
{
	const struct op_row *x = a, *y = b;
	const struct strtab *names = ctx;
	int c;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	c = strcmp(strtab_str(names, x->name), strtab_str(names, y->name));
	return c ? c : strcmp(x->type, y->type);
}

/* core: with op_statistic's Core Type, which communication_statistic lacks. */
static void write_op_row(FILE *fp, const struct op_row *r,
			 const struct strtab *names, bool core)
{
	csv_u64(fp, r->device);
	csv_next_text(fp, strtab_str(names, r->name));
	if (core)
		csv_next_text(fp, r->type);
	csv_next_u64(fp, r->count);
	csv_next_milli(fp, r->total);
	csv_next_milli(fp, r->min);
	csv_next_milli(fp, csv_div_round(r->total, r->count));
	csv_next_milli(fp, r->max);
	/* Percent in thousandths: total · 100 · 1000 / the device's total. */
	csv_next_milli(fp, r->device_total ?
		  csv_div_round((u128)r->total * 100000, r->device_total) : 0);
	fputc('\n', fp);
}

/* Rows were made in task order (by device), so a device's rows are adjacent. */
static void set_device_totals(struct op_table *tb)
{
	size_t i, j, k;

	for (i = 0; i < tb->n; i = j) {
		uint64_t total = 0;

		for (j = i; j < tb->n && tb->rows[j].device == tb->rows[i].device; j++)
			total += tb->rows[j].total;
		for (k = i; k < j; k++)
			tb->rows[k].device_total = total;
	}
}

/*
 * The rows of tb (unless err), under header, with a Core Type column if
 * core; Ratio is of the device's total of its rows.  Frees tb's arrays.
 */
static int write_statistic(FILE *fp, const struct profdata *p,
			   struct op_table tb, int err, bool core, const char *header)
{
	size_t i;

	if (!err) {
		set_device_totals(&tb);
		if (tb.n)	/* qsort_r() wants an array, even of nothing */
			qsort_r(tb.rows, tb.n, sizeof(*tb.rows), by_total,
				(void *)&p->names);
		fputs(header, fp);
		for (i = 0; i < tb.n; i++)
			write_op_row(fp, &tb.rows[i], &p->names, core);
		err = ferror(fp) ? -EIO : 0;
	}
	free(tb.rows);
	free(tb.slots);
	return err;
}

/* op_summary's rows less the collectives', as msprof counts its ops. */
static bool is_counted_op(const struct profdata *p, const struct devtask *t)
{
	return is_op(profdata_task_op(p, t)) && !overlap_is_comm(p, t);
}

/* The statistic of the tasks pick takes. */
static int op_statistic(FILE *fp, const struct profdata *p,
			bool (*pick)(const struct profdata *, const struct devtask *),
			bool core, const char *header)
{
	struct op_table tb = { 0 };
	size_t i;
	int err = 0;

	for (i = 0; i < p->ntasks && !err; i++)
		if (pick(p, &p->tasks[i]))
			err = add_task(&tb, p, &p->tasks[i]);
	return write_statistic(fp, p, tb, err, core, header);
}

int summary_op_statistic(FILE *fp, const struct profdata *p)
{
	return op_statistic(fp, p, is_counted_op, true,
			    "Device_id,OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n");
}

bool summary_has_communication(const struct profdata *p)
{
	size_t i;

	for (i = 0; i < p->ntasks; i++)
		if (overlap_is_comm(p, &p->tasks[i]))
			return true;
	return false;
}

/*
 * Per op, its span from its first task's start to its last task's end, as
 * msprof's; an op of npusim's or CUPTI's is one task.
 */
int summary_communication_statistic(FILE *fp, const struct profdata *p)
{
	struct op_table tb = { 0 };
	struct comm_ops c;
	size_t i;
	int err = comm_ops_load(&c, p);

	for (i = 0; i < c.n && !err; i++) {
		const struct comm_op *op = &c.v[i];
		const struct devop *o = profdata_task_op(p, &p->tasks[op->task]);
		struct row_span r = { true, 0, op->start_ns, op->end_ns };

		err = add_entry(&tb, p->tasks[op->task].device,
				op->raw ? naming_op_type(o) : o->name, "HCCL",
				span_duration(p, &r));
	}
	comm_ops_free(&c);
	return write_statistic(fp, p, tb, err, false,
			       "Device_id,OP Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n");
}
