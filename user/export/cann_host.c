// SPDX-License-Identifier: MIT
/*
 * The host half of a runtime's device tasks: its task_tracks (§2.5), their
 * batch ids from FLIP_TASKs (§4.2), and what binds to them on their thread
 * (§4.1): the node launch API's op name, node_basic_info, tensor_info,
 * memcpy_info and hccl_info.  Each such record binds to the first task its
 * thread submitted at or after it: the runtime reports it inside the API
 * that then submits the task.  Tasks are found through one index of them
 * by (thread, submit time); the records themselves are read, never held.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cann.h"
#include "cann_host.h"

/* Marks in start_ns/end_ns before the device half: a flip, to drop. */
#define FLIP_MARK	UINT64_MAX

static enum devtask_type type_of_task(uint64_t type)
{
	switch (type) {
	case CANN_TASK_KERNEL_AICORE: return DT_AI_CORE;
	case CANN_TASK_KERNEL_AIVEC: return DT_AI_VECTOR_CORE;
	case CANN_TASK_KERNEL_AICPU: return DT_AI_CPU;
	case CANN_TASK_KERNEL_MIX_AIC: return DT_MIX_AIC;
	case CANN_TASK_KERNEL_MIX_AIV: return DT_MIX_AIV;
	case CANN_TASK_MEMCPY_ASYNC: return DT_MEMCPY_ASYNC;
	case CANN_TASK_MEMSET_ASYNC: return DT_MEMSET;
	}
	return DT_OTHER;
}

/* A type the dictionary names, or one of the runtime's own numbers. */
static bool known_task_type(const struct profdata *p, uint64_t type)
{
	if (type <= UINT32_MAX && cann_type_str(p, CANN_LEVEL_RUNTIME, (uint32_t)type))
		return true;
	switch (type) {
	case CANN_TASK_KERNEL_AICORE: case CANN_TASK_KERNEL_AICPU:
	case CANN_TASK_EVENT_RECORD: case CANN_TASK_EVENT_WAIT:
	case CANN_TASK_MEMCPY_ASYNC: case CANN_TASK_MAINTENANCE:
	case CANN_TASK_NOTIFY_WAIT: case CANN_TASK_NOTIFY_RECORD:
	case CANN_TASK_MEMSET_ASYNC: case CANN_TASK_STARS_COMMON:
	case CANN_TASK_FFTS_PLUS: case CANN_TASK_KERNEL_AIVEC:
	case CANN_TASK_FLIP: case CANN_TASK_KERNEL_MIX_AIC:
	case CANN_TASK_KERNEL_MIX_AIV:
		return true;
	}
	return false;
}

/* A kernel task takes its op's name (§4.1); others their type's. */
static bool is_kernel(enum devtask_type t, uint64_t type)
{
	return (t >= DT_AI_CORE && t <= DT_MIX_AIV) ||
	       type == CANN_TASK_STARS_COMMON || type == CANN_TASK_FFTS_PLUS;
}

/* A string of the dictionaries, else the number itself, interned. */
static int intern_named(struct profdata *p, const char *s, uint64_t num,
			uint32_t *id)
{
	char buf[24];

	if (!s) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)num);
		s = buf;
	}
	return strtab_intern(&p->names, s, strlen(s), id);
}

/* The op of a task_track alone: no node has said more yet. */
static int track_op(struct profdata *p, const struct cann_task_track *r,
		    uint32_t *id)
{
	enum devtask_type type = type_of_task(r->task_type);
	const char *kname = r->kernel_name ? cann_hash_str(p, r->kernel_name) : NULL;
	const char *tname = r->task_type <= UINT32_MAX ?
			    cann_type_str(p, CANN_LEVEL_RUNTIME, (uint32_t)r->task_type) :
			    NULL;
	struct devop op = {
		.op_type = NO_STR, .type = (uint8_t)type, .sqe = DEVOP_NO_SQE,
		.ge_type = DEVOP_NO_GE, .hf32 = 2, .rt_kind = (uint8_t)type,
	};
	int i, err;

	for (i = 0; i < SHAPES; i++)
		op.shapes[i] = NO_STR;
	err = intern_named(p, tname, r->task_type, &op.rt_type);
	err = err ?: kname ? intern_named(p, kname, 0, &op.kernel) :
	      intern_named(p, "N/A", 0, &op.kernel);
	if (err)
		return err;
	if (is_kernel(type, r->task_type) && kname) {
		op.name = op.kernel;
		op.op_type = op.kernel;	/* no node: the kernel's name is its type */
	} else {
		op.name = op.rt_type;
	}
	return profdata_op(p, &op, id);
}

static int add_track(const void *rec, const struct cann_src *s, void *ctx)
{
	struct cann_task_track r;
	struct host_load *h = ctx;
	struct profdata *p = h->p;
	struct devtask *t;
	char what[64];

	memcpy(&r, rec, sizeof(r));
	if (!cann_head_ok(&r.head, s))
		return 0;
	if (r.head.level != CANN_LEVEL_RUNTIME || r.head.type != CANN_RT_TASK_TRACK) {
		snprintf(what, sizeof(what), "not a task_track: level %u, type %u",
			 r.head.level, r.head.type);
		cann_fault(s, what);
		return 0;
	}
	/* A DPU's (bits 12-15) goes elsewhere in Huawei's; maintenance is none. */
	if (r.device >> 12 || r.task_type == CANN_TASK_MAINTENANCE)
		return 0;
	if (p->ntasks == p->cap_tasks) {
		cann_fault(s, "more task_tracks than the files' sizes held");
		return 0;
	}
	t = &p->tasks[p->ntasks];
	*t = (struct devtask){
		.submit_ns = cann_host_ns(h->c, r.head.timestamp),
		.host_tid = r.head.thread_id, .stream = r.stream,
		.task_id = r.task_id, .device = r.device & 0xfff,
	};
	if (!known_task_type(p, r.task_type)) {
		snprintf(what, sizeof(what), "unknown task type %llu",
			 (unsigned long long)r.task_type);
		cann_fault(s, what);	/* kept, named by its number */
	}
	if (r.task_type == CANN_TASK_FLIP)
		t->start_ns = t->end_ns = FLIP_MARK;
	else if (track_op(p, &r, &t->op))
		return -ENOMEM;
	p->ntasks++;
	return 0;
}

static int by_stream_submit(const void *a, const void *b, void *arg)
{
	const struct devtask *x = a, *y = b;

	(void)arg;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->submit_ns != y->submit_ns)
		return x->submit_ns < y->submit_ns ? -1 : 1;
	/* A flip comes before the task that wrapped at the same time. */
	return (y->start_ns == FLIP_MARK) - (x->start_ns == FLIP_MARK);
}

/*
 * Batch ids recomputed (§4.2): a stream's count of FLIP_TASKs before each
 * task, in time order; the flips themselves are no device tasks.
 */
static void host_batches(struct profdata *p, size_t from)
{
	size_t i, kept = from;
	uint32_t flips = 0;

	for (i = from; i < p->ntasks; i++) {
		struct devtask *t = &p->tasks[i];

		if (i == from || t->device != p->tasks[i - 1].device ||
		    t->stream != p->tasks[i - 1].stream)
			flips = 0;
		if (t->start_ns == FLIP_MARK) {
			flips++;
			continue;
		}
		t->batch = (uint16_t)flips;
		p->tasks[kept++] = *t;
	}
	p->ntasks = kept;
}

static int by_tid_submit(const void *a, const void *b, void *arg)
{
	const struct devtask *v = arg;
	const struct devtask *x = &v[*(const uint32_t *)a], *y = &v[*(const uint32_t *)b];

	if (x->host_tid != y->host_tid)
		return x->host_tid < y->host_tid ? -1 : 1;
	return (x->submit_ns > y->submit_ns) - (x->submit_ns < y->submit_ns);
}

static int make_order(struct host_load *h, size_t from)
{
	size_t i;

	h->n = h->p->ntasks - from;
	h->order = malloc((h->n ? h->n : 1) * sizeof(*h->order));
	if (!h->order)
		return -ENOMEM;
	for (i = 0; i < h->n; i++)
		h->order[i] = (uint32_t)(from + i);
	qsort_r(h->order, h->n, sizeof(*h->order), by_tid_submit, h->p->tasks);
	/* After the sort, whose own copy of order is then freed: a lower peak. */
	h->node = calloc(h->n ? h->n : 1, sizeof(*h->node));
	return h->node ? 0 : -ENOMEM;
}

/* The task_track files' records, into p->tasks from its end on. */
static int read_tracks(struct host_load *h)
{
	return cann_each_rec(h->p, "host/data", "compact.task_track", true,
			     CANN_COMPACT_SIZE, false, add_track, h);
}

int cann_host_load(struct profdata *p, struct cann *c)
{
	struct host_load h = { .p = p, .c = c, .from = p->ntasks };
	int err = read_tracks(&h);

	if (!err)
		err = profdata_sort_range(p, h.from, p->ntasks - h.from,
					  by_stream_submit);
	if (!err)
		host_batches(p, h.from);
	err = err ?: make_order(&h, h.from);
	err = err ?: cann_bind_apis(&h);
	err = err ?: cann_bind_records(&h);
	free(h.order);
	free(h.node);
	return err;
}
