// SPDX-License-Identifier: MIT
/* Overlap Analysis: a device's time as computing, communicating or free. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

bool overlap_is_compute(const struct profdata *p, const struct devtask *t)
{
	const char *type = naming_devtask_type(p, t);

	/* Copies and fills move data: msprof counts neither as an op; a
	 * collective is communication, not computing. */
	return strcmp(type, "MEMCPY_ASYNC") && strcmp(type, "MEMSET") &&
	       strcmp(type, "HCCL");
}

bool overlap_is_comm(const struct profdata *p, const struct devtask *t)
{
	return !strcmp(naming_devtask_type(p, t), "HCCL");
}

/* A device's intervals of one kind, merged, by start. */
struct ivals {
	struct overlap_ival *v;
	size_t n, cap;
};

static int ival_add(struct ivals *s, enum overlap_kind kind, uint64_t start,
		    uint64_t end)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct overlap_ival *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct overlap_ival){ kind, start, end };
	return 0;
}

/* The union of the tasks [from, to) that pick takes, which are by start. */
static int merged(const struct profdata *p, size_t from, size_t to,
		  bool (*pick)(const struct profdata *, const struct devtask *),
		  enum overlap_kind kind, struct ivals *out)
{
	size_t i;

	for (i = from; i < to; i++) {
		const struct devtask *t = &p->tasks[i];
		struct overlap_ival *last = out->n ? &out->v[out->n - 1] : NULL;
		int err;

		if (t->end_ns <= t->start_ns || !pick(p, t))
			continue;
		if (last && t->start_ns <= last->end_ns) {
			if (t->end_ns > last->end_ns)
				last->end_ns = t->end_ns;
			continue;
		}
		err = ival_add(out, kind, t->start_ns, t->end_ns);
		if (err)
			return err;
	}
	return 0;
}

/*
 * What of the merged intervals a leaves uncovered by the merged b, as
 * kind; with a the whole span, the gaps between b's intervals.
 */
static int minus(const struct ivals *a, const struct ivals *b,
		 enum overlap_kind kind, struct ivals *out)
{
	size_t i, j = 0;
	int err;

	for (i = 0; i < a->n; i++) {
		uint64_t at = a->v[i].start_ns, end = a->v[i].end_ns;

		while (j < b->n && b->v[j].end_ns <= at)
			j++;
		for (; j < b->n && b->v[j].start_ns < end; j++) {
			if (b->v[j].start_ns > at) {
				err = ival_add(out, kind, at, b->v[j].start_ns);
				if (err)
					return err;
			}
			if (b->v[j].end_ns >= end) {
				at = end;
				break;
			}
			at = b->v[j].end_ns;
		}
		if (at < end) {
			err = ival_add(out, kind, at, end);
			if (err)
				return err;
		}
	}
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct overlap_ival *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

static bool is_busy(const struct profdata *p, const struct devtask *t)
{
	return overlap_is_compute(p, t) || overlap_is_comm(p, t);
}

/* One device's intervals, [from, to) of p->tasks, by start, into all. */
static int device_ivals(const struct profdata *p, size_t from, size_t to,
			struct ivals *all)
{
	struct ivals comp = { 0 }, comm = { 0 }, busy = { 0 }, span = { 0 };
	uint64_t end = 0;
	size_t i;
	int err;

	for (i = from; i < to; i++)
		if (p->tasks[i].end_ns > end)
			end = p->tasks[i].end_ns;
	err = merged(p, from, to, overlap_is_compute, OVERLAP_COMPUTE, &comp);
	if (!err)
		err = merged(p, from, to, overlap_is_comm, OVERLAP_COMMUNICATION, &comm);
	if (!err)
		err = merged(p, from, to, is_busy, OVERLAP_FREE, &busy);
	if (!err && end > p->tasks[from].start_ns)
		err = ival_add(&span, OVERLAP_FREE, p->tasks[from].start_ns, end);
	for (i = 0; !err && i < comp.n; i++)
		err = ival_add(all, OVERLAP_COMPUTE, comp.v[i].start_ns, comp.v[i].end_ns);
	for (i = 0; !err && i < comm.n; i++)
		err = ival_add(all, OVERLAP_COMMUNICATION, comm.v[i].start_ns,
			       comm.v[i].end_ns);
	if (!err)
		err = minus(&comm, &comp, OVERLAP_COMM_NOT_OVERLAPPED, all);
	if (!err)
		err = minus(&span, &busy, OVERLAP_FREE, all);
	free(comp.v);
	free(comm.v);
	free(busy.v);
	free(span.v);
	return err;
}

int overlap_device(const struct profdata *p, size_t from, size_t to,
		   struct overlap_ival **v, size_t *n)
{
	struct ivals all = { 0 };
	int err = from < to ? device_ivals(p, from, to, &all) : 0;

	if (err) {
		free(all.v);
		return err;
	}
	if (all.n)
		qsort(all.v, all.n, sizeof(*all.v), by_start);
	*v = all.v;
	*n = all.n;
	return 0;
}

int overlap_each(const struct profdata *p, overlap_fn fn, void *ctx)
{
	struct overlap_ival *v;
	size_t from, to, i, n;
	int err;

	for (from = 0; from < p->ntasks; from = to) {
		for (to = from + 1; to < p->ntasks &&
		     p->tasks[to].device == p->tasks[from].device; to++)
			;
		err = overlap_device(p, from, to, &v, &n);
		for (i = 0; !err && i < n; i++)
			err = fn(p->tasks[from].device, v[i].kind, v[i].start_ns,
				 v[i].end_ns, ctx);
		free(v);
		if (err)
			return err;
	}
	return 0;
}
