// SPDX-License-Identifier: MIT
/* Overlap Analysis: a device's time as computing, communicating or free. */
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

/* Where one device's walk stands. */
struct dev_walk {
	uint32_t dev;
	uint64_t free_from;	/* the end of the last interval handed */
	overlap_fn fn;
	void *ctx;
};

/* A computing interval that has closed, and the free gap before it. */
static int close_compute(struct dev_walk *w, uint64_t cs, uint64_t ce)
{
	int err = 0;

	if (cs > w->free_from)
		err = w->fn(w->dev, OVERLAP_FREE, w->free_from, cs, w->ctx);
	if (!err)
		err = w->fn(w->dev, OVERLAP_COMPUTE, cs, ce, w->ctx);
	w->free_from = ce;
	return err;
}

/* One device's tasks, [from, to) of p->tasks, which are by start. */
static int device_each(const struct profdata *p, size_t from, size_t to,
		       overlap_fn fn, void *ctx)
{
	struct dev_walk w = { p->tasks[from].device, p->tasks[from].start_ns,
			      fn, ctx };
	uint64_t cs = 0, ce = 0, end = 0;	/* ce: a computing interval open */
	size_t i;
	int err;

	for (i = from; i < to; i++) {
		const struct devtask *t = &p->tasks[i];

		if (t->end_ns > end)
			end = t->end_ns;
		if (t->end_ns <= t->start_ns || !overlap_is_compute(p, t))
			continue;
		if (ce && t->start_ns <= ce) {
			if (t->end_ns > ce)
				ce = t->end_ns;
			continue;
		}
		if (ce) {
			err = close_compute(&w, cs, ce);
			if (err)
				return err;
		}
		cs = t->start_ns;
		ce = t->end_ns;
	}
	if (ce) {
		err = close_compute(&w, cs, ce);
		if (err)
			return err;
	}
	return end > w.free_from ?
	       fn(w.dev, OVERLAP_FREE, w.free_from, end, ctx) : 0;
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
