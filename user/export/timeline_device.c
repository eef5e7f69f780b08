// SPDX-License-Identifier: MIT
/*
 * The timeline's device side: per device its Ascend Hardware process (a
 * thread a stream) and Overlap Analysis process, each task's slice with
 * its copy's size and the flow from its launch, the overlap slices, and
 * the AI Core Freq process of each device a runtime's files describe.
 */
#include <errno.h>
#include <stdlib.h>

#include "cann.h"
#include "naming.h"
#include "overlap.h"
#include "timeline_parts.h"

/* One device's processes: its hardware, by stream, and its overlap. */
static int write_device_names(struct tl *t, size_t from, size_t to)
{
	const struct profdata *p = t->p;
	uint32_t dev = p->tasks[from].device;
	uint64_t pid = tl_pid(t, SORT_HARDWARE, dev);
	struct idset streams = { 0 };
	char label[32];
	size_t i;
	int k;

	snprintf(label, sizeof(label), "NPU %u", dev);
	tl_process(t, "Ascend Hardware", label, SORT_HARDWARE, dev);
	for (i = from; i < to; i++)
		if (tl_idset_add(&streams, p->tasks[i].stream)) {
			free(streams.v);
			return -ENOMEM;
		}
	tl_idset_close(&streams);
	for (i = 0; i < streams.n; i++)
		tl_numbered_thread(t, pid, "Stream", streams.v[i]);
	free(streams.v);
	if (tl_comm_names(t, dev, label))
		return -ENOMEM;
	tl_process(t, "Overlap Analysis", label, SORT_OVERLAP, dev);
	pid = tl_pid(t, SORT_OVERLAP, dev);
	for (k = OVERLAP_COMPUTE; k <= OVERLAP_FREE; k++)
		tl_thread(t, pid, (uint32_t)k, overlap_name((enum overlap_kind)k),
			  (uint64_t)k);
	return 0;
}

int tl_device_names(struct tl *t)
{
	const struct profdata *p = t->p;
	size_t from, to;
	int err;

	for (from = 0; from < p->ntasks; from = to) {
		for (to = from + 1; to < p->ntasks &&
		     p->tasks[to].device == p->tasks[from].device; to++)
			;
		err = write_device_names(t, from, to);
		if (err)
			return err;
	}
	return 0;
}

/* msprof's names of a copy's direction (MEMCPY_OPERATIONS), by kind. */
static const char *copy_operation(uint32_t kind)
{
	static const char *const ops[] = {
		"host to host", "host to device", "device to host",
		"device to device",
	};

	return kind < sizeof(ops) / sizeof(ops[0]) ? ops[kind] : "other";
}

static void copy_args(struct tl *t, const struct devtask *d)
{
	const struct task_copy *tc = profdata_copy(t->p, d);
	const struct copy_call *c = copy_calls_find(&t->copies, d->conn);
	uint64_t dur = d->end_ns > d->start_ns ? d->end_ns - d->start_ns : 0;
	uint64_t bytes;
	uint32_t kind;

	if (tc) {	/* memcpy_info's word before the call's arguments */
		bytes = tc->bytes;
		kind = tc->kind;
	} else if (c && c->has_bytes && c->has_kind) {
		bytes = c->bytes;
		kind = (uint32_t)c->kind;
	} else {
		return;
	}
	LIT(&t->ob, ",\"size(B)\":");
	ob_u64(&t->ob, bytes);
	/* B/ns is GB/s; ob_us3 writes thousandths with 3 decimals. */
	LIT(&t->ob, ",\"bandwidth(GB/s)\":");
	ob_us3(&t->ob, dur ? bytes * 1000 / dur : 0);
	LIT(&t->ob, ",\"operation\":");
	ob_json_str(&t->ob, copy_operation(kind));
}

/*
 * A runtime's task no eBPF call launched: its flow from its task_track on
 * the submitting thread, with msprof's id of a kernel's (§4.3).
 */
static void task_track_flow(struct tl *t, const struct devtask *d, uint64_t pid)
{
	unsigned __int128 id = (unsigned __int128)d->device << 80 |
			       (unsigned __int128)d->stream << 64 |
			       (unsigned __int128)d->task_id << 48 |
			       (unsigned __int128)d->batch << 32 | NO_ID;

	tl_flow(t, id, d->host_tid, d->submit_ns, pid, d->stream, d->start_ns);
}

/* A device task slice and, when its launch is known, the flow from it. */
static void write_task(struct tl *t, const struct devtask *d)
{
	const struct profdata *p = t->p;
	const struct profcall *c = profdata_call(p, d->conn);
	uint64_t pid = tl_pid(t, SORT_HARDWARE, d->device);

	tl_head(t, naming_devtask_name(p, d), pid, d->stream);
	tl_span_args(t, d->start_ns, d->end_ns);
	LIT(&t->ob, "\"Model Id\":");
	ob_u64(&t->ob, NO_ID);
	LIT(&t->ob, ",\"Task Type\":");
	ob_json_str(&t->ob, naming_devtask_type(p, d));
	LIT(&t->ob, ",\"Physic Stream Id\":");
	ob_u64(&t->ob, d->stream);
	LIT(&t->ob, ",\"Task Id\":");
	ob_u64(&t->ob, d->task_id);
	LIT(&t->ob, ",\"Batch Id\":");
	ob_u64(&t->ob, d->batch);
	LIT(&t->ob, ",\"Subtask Id\":");
	ob_u64(&t->ob, NO_ID);
	LIT(&t->ob, ",\"connection_id\":");
	ob_u64(&t->ob, d->conn);
	copy_args(t, d);
	LIT(&t->ob, ",\"block_dim\":");
	ob_u64(&t->ob, profdata_task_op(p, d)->block_dim);
	LIT(&t->ob, ",\"host_tid\":");
	ob_u64(&t->ob, d->host_tid);
	LIT(&t->ob, "}}");
	/* A collective's flow ends at its op, on the Communication process. */
	if (overlap_is_comm(p, d))
		return;
	if (!c) {
		if (d->submit_ns && profdata_task_op(p, d)->sqe != DEVOP_NO_SQE)
			task_track_flow(t, d, pid);
		return;
	}
	tl_flow(t, tl_conn_flow(d->conn), c->ns_tid, c->start_ns, pid, d->stream,
		d->start_ns);
}

static int write_overlap(uint32_t dev, enum overlap_kind kind,
			 uint64_t start_ns, uint64_t end_ns, void *ctx)
{
	struct tl *t = ctx;

	tl_head(t, overlap_name(kind), tl_pid(t, SORT_OVERLAP, dev), kind);
	tl_span_args(t, start_ns, end_ns);
	LIT(&t->ob, "}}");
	return 0;
}

void tl_tasks(struct tl *t)
{
	size_t i;

	for (i = 0; i < t->p->ntasks; i++)
		write_task(t, &t->p->tasks[i]);
}

int tl_overlap(struct tl *t)
{
	return overlap_each(t->p, write_overlap, t);
}

/* msprof fills a frequency that did not change with a counter each ms. */
#define FREQ_STEP_NS 1000000ull
/* How far past the window's span counters may go: a second's worth. */
#define FREQ_SLACK 1000

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
 * Device n's AI Core Freq, as msprof's analysis draws a 910B device with
 * no frequency records (npusim's, and a runtime's without low-power
 * data): info.json.N's aic_frequency at the device's start, again every
 * ms while at least 1 us is left before end_info.N's end, and at that
 * end (a us after the start where end_info.N has none).  The task writes
 * the files that say both, so the bounds come from the window's own start
 * and end pairs alone: an end more than a second past the window's is
 * taken there, at most the window's span (and a second) of counters fill
 * the time between, and a window that never closed gets no fill.
 */
static void aicore_freq(struct tl *t, const struct cann *c, unsigned int n)
{
	static const char name[] = "AI Core Freq";
	const struct profmeta *m = &t->p->meta;
	uint64_t pid = tl_pid(t, SORT_AICORE_FREQ, n), start, end, first, limit;
	uint64_t k, nfill = 0, most = 0;
	double mhz = c->aic_mhz[n];
	char label[32];

	start = profmeta_epoch_ns(m, cann_dev_ns(c, n, c->dev[n].in0));
	end = c->dev_end_epoch_ns[n] ? c->dev_end_epoch_ns[n] : add_sat(start, 1000);
	if (m->end.mono_ns > m->start.mono_ns) {
		first = profmeta_epoch_ns(m, m->start.mono_ns);
		limit = add_sat(profmeta_epoch_ns(m, m->end.mono_ns),
				FREQ_SLACK * FREQ_STEP_NS);
		if (end > limit)
			end = limit;
		if (limit > first)
			most = (limit - first) / FREQ_STEP_NS + FREQ_SLACK;
	}
	if (end > start && end - start > FREQ_STEP_NS)
		nfill = (end - start - 1000) / FREQ_STEP_NS;
	if (nfill > most)
		nfill = most;
	snprintf(label, sizeof(label), "NPU %u", n);
	tl_process(t, name, label, SORT_AICORE_FREQ, n);
	tl_counter(t, name, pid, start, false, "MHz", mhz);
	for (k = 1; k <= nfill; k++)
		tl_counter(t, name, pid, start + k * FREQ_STEP_NS, false, "MHz", mhz);
	tl_counter(t, name, pid, end, false, "MHz", mhz);
}

void tl_aicore_freq(struct tl *t)
{
	const struct cann *c = t->p->cann;
	unsigned int n;

	for (n = 0; c && n < CANN_MAX_DEVICES; n++)
		if (c->dev_known[n] && c->aic_mhz[n] > 0)
			aicore_freq(t, c, n);
}
