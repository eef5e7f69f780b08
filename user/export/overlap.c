// SPDX-License-Identifier: MIT
/* Overlap Analysis: a device's time as computing, communicating or free. */
#include <string.h>

#include "msprof/cann_raw.h"
#include "naming.h"
#include "overlap.h"

const char *overlap_name(enum overlap_kind kind)
{
	static const char *const names[] = {
		[OVERLAP_COMPUTE] = "Computing",
		[OVERLAP_COMMUNICATION] = "Communication",
		[OVERLAP_COMM_NOT_OVERLAPPED] = "Communication(Not Overlapped)",
		[OVERLAP_FREE] = "Free",
	};

	return kind <= OVERLAP_FREE ? names[kind] : "Free";
}

/* A kernel's task; of no host task, one its SQE type says runs one. */
bool overlap_is_compute(const struct profdata *p, const struct devtask *t)
{
	const struct devop *op = profdata_task_op(p, t);

	switch (op->type) {
	case DT_AI_CORE: case DT_AI_VECTOR_CORE: case DT_AI_CPU:
	case DT_MIX_AIC: case DT_MIX_AIV: case DT_KERNEL:
		return true;
	case DT_UNKNOWN:
		return op->sqe == CANN_SQE_AI_CORE || op->sqe == CANN_SQE_AIV ||
		       op->sqe == CANN_SQE_AI_CPU;
	}
	return false;
}

bool overlap_is_comm(const struct profdata *p, const struct devtask *t)
{
	return profdata_task_op(p, t)->type == DT_HCCL;
}

/* Computing or communicating: one look at the type, not one per kind. */
static bool is_busy(const struct profdata *p, const struct devtask *t)
{
	return overlap_is_compute(p, t) || overlap_is_comm(p, t);
}

/*
 * The intervals are made as they are handed on, from cursors over the
 * device's tasks (by start): a window's worth of them never sits in
 * memory, once per output thread (the timeline's and the db's).
 */

/* The union of the tasks a pick takes, one merged interval at a time. */
struct run {
	const struct profdata *p;
	bool (*pick)(const struct profdata *, const struct devtask *);
	size_t i, to;
	bool has;		/* [s, e) is the current interval */
	uint64_t s, e;
};

static void run_next(struct run *r)
{
	const struct devtask *t;

	r->has = false;
	for (; r->i < r->to; r->i++) {
		t = &r->p->tasks[r->i];
		if (t->end_ns <= t->start_ns || !r->pick(r->p, t))
			continue;
		if (!r->has) {
			r->has = true;
			r->s = t->start_ns;
			r->e = t->end_ns;
		} else if (t->start_ns <= r->e) {
			if (t->end_ns > r->e)
				r->e = t->end_ns;
		} else {
			return;
		}
	}
}

static void run_start(struct run *r, const struct profdata *p, size_t from,
		      size_t to, bool (*pick)(const struct profdata *,
					      const struct devtask *))
{
	*r = (struct run){ .p = p, .pick = pick, .i = from, .to = to };
	run_next(r);
}

/* What of a's intervals b leaves uncovered, one piece at a time. */
struct gaps {
	struct run a, b;
	uint64_t at;		/* a's current interval is uncovered from here */
	bool has;
	uint64_t s, e;
};

static void gaps_next(struct gaps *g)
{
	g->has = false;
	while (!g->has && g->a.has) {
		uint64_t end = g->a.e;

		while (g->b.has && g->b.e <= g->at)
			run_next(&g->b);
		if (!g->b.has || g->b.s >= end) {
			/* b covers nothing more of a's interval. */
			g->has = true;
			g->s = g->at;
			g->e = end;
			g->at = end;
		} else {
			if (g->b.s > g->at) {
				g->has = true;
				g->s = g->at;
				g->e = g->b.s;
			}
			g->at = g->b.e;
		}
		if (g->at >= end) {
			run_next(&g->a);
			g->at = g->a.s;
		}
	}
}

static void gaps_start(struct gaps *g, const struct run *a, const struct run *b)
{
	g->a = *a;
	g->b = *b;
	g->at = a->s;
	gaps_next(g);
}

/* Any task at all, as one interval: the device's span. */
static bool any(const struct profdata *p, const struct devtask *t)
{
	(void)p;
	(void)t;
	return true;
}

/*
 * One device's intervals, [from, to) of p->tasks, to fn in ascending
 * (start, kind) order: Computing, Communication, Not Overlapped (the
 * collectives' time minus computing) and Free (the span minus both).
 */
static int device_each(const struct profdata *p, size_t from, size_t to,
		       overlap_fn fn, void *ctx)
{
	uint32_t dev = p->tasks[from].device;
	struct run comp, comm, busy, span;
	struct gaps notov, idle;
	uint64_t end = 0;
	size_t i;
	int err;

	for (i = from; i < to; i++)
		if (p->tasks[i].end_ns > end)
			end = p->tasks[i].end_ns;
	run_start(&comp, p, from, to, overlap_is_compute);
	run_start(&comm, p, from, to, overlap_is_comm);
	run_start(&busy, p, from, to, is_busy);
	/* The span is one interval: tasks are by start, none ends after end. */
	span = (struct run){ .p = p, .pick = any, .i = to, .to = to,
			     .has = end > p->tasks[from].start_ns,
			     .s = p->tasks[from].start_ns, .e = end };
	gaps_start(&notov, &comm, &comp);
	gaps_start(&idle, &span, &busy);
	for (;;) {
		struct { bool *has; uint64_t *s, *e; enum overlap_kind kind; } c[] = {
			{ &comp.has, &comp.s, &comp.e, OVERLAP_COMPUTE },
			{ &comm.has, &comm.s, &comm.e, OVERLAP_COMMUNICATION },
			{ &notov.has, &notov.s, &notov.e, OVERLAP_COMM_NOT_OVERLAPPED },
			{ &idle.has, &idle.s, &idle.e, OVERLAP_FREE },
		};
		int k, best = -1;

		/* Kinds in order: at one start, the lower kind goes first. */
		for (k = 0; k < 4; k++)
			if (*c[k].has && (best < 0 || *c[k].s < *c[best].s))
				best = k;
		if (best < 0)
			return 0;
		err = fn(dev, c[best].kind, *c[best].s, *c[best].e, ctx);
		if (err)
			return err;
		switch (best) {
		case 0: run_next(&comp); break;
		case 1: run_next(&comm); break;
		case 2: gaps_next(&notov); break;
		default: gaps_next(&idle); break;
		}
	}
}

int overlap_each(const struct profdata *p, overlap_fn fn, void *ctx)
{
	size_t from, to;
	int err;

	for (from = 0; from < p->ntasks; from = to) {
		for (to = from + 1; to < p->ntasks &&
		     p->tasks[to].device == p->tasks[from].device; to++)
			;
		err = device_each(p, from, to, fn, ctx);
		if (err)
			return err;
	}
	return 0;
}
