// SPDX-License-Identifier: MIT
/*
 * Pairing a task queue's dequeues with their enqueues (queue_match.h).  The
 * queue calls are few beside the window's calls: they are gathered from
 * the host records into an array of their own, sorted by key, role and
 * start, and each key's enqueues and dequeues paired in one pass.
 */
#include <errno.h>
#include <stdlib.h>

#include "msprof/probe_packs.h"
#include "queue_match.h"

static int by_key_role_start(const void *a, const void *b, void *arg)
{
	const struct queue_call *x = a, *y = b;
	const struct profcall *calls = arg;
	uint64_t xs = calls[x->call].start_ns, ys = calls[y->call].start_ns;

	if (x->key_kind != y->key_kind)
		return x->key_kind < y->key_kind ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->role != y->role)
		return x->role < y->role ? -1 : 1;
	if (xs != ys)
		return xs < ys ? -1 : 1;
	return x->call < y->call ? -1 : x->call > y->call;
}

/* Gives dequeue dc, and the calls nested in it, enqueue ec's. */
static void give(struct profcall *calls, size_t ncalls, uint32_t dc, uint32_t ec)
{
	const struct profcall *d = &calls[dc];
	uint32_t stack = calls[ec].stack;
	size_t i;

	for (i = dc; i < ncalls; i++) {
		struct profcall *c = &calls[i];

		if (i > dc && (c->ns_tid != d->ns_tid || c->start_ns > d->end_ns ||
			       c->depth <= d->depth))
			break;
		c->enqueue = ec + 1;
		/* The enqueue's line is the one that asked for the op. */
		if (stack)
			c->stack = stack;
	}
}

/* How many of the n enqueues (by start) started at or before ns. */
static size_t started_by(const struct profcall *calls, const struct queue_call *e,
			 size_t n, uint64_t ns)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (calls[e[mid].call].start_ns <= ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Each dequeue's item is its key's latest enqueue that started before it. */
static void pair_items(struct profcall *calls, size_t ncalls,
		       const struct queue_call *e, size_t ne,
		       const struct queue_call *d, size_t nd)
{
	size_t j, k;

	for (j = 0; j < nd; j++) {
		k = started_by(calls, e, ne, calls[d[j].call].start_ns);
		if (k)
			give(calls, ncalls, d[j].call, e[k - 1].call);
	}
}

/* When a dequeue's op had surely been enqueued: at its first nested call. */
static uint64_t op_time(const struct profcall *calls, size_t ncalls, uint32_t dc)
{
	const struct profcall *d = &calls[dc], *c = dc + 1 < ncalls ? d + 1 : NULL;

	if (c && c->ns_tid == d->ns_tid && c->depth > d->depth &&
	    c->start_ns <= d->end_ns)
		return c->start_ns;
	return d->end_ns;
}

/*
 * One queue's items leave in order, so dequeue j ran enqueue j + s.  s is
 * at most 1: a window can begin inside one dequeue, waiting on an empty
 * queue, which takes the first enqueue unseen; s is less by each item
 * already queued then.  An op cannot run before it was enqueued: with c_j
 * the enqueues started by dequeue j's op, j + s < c_j for every j.  The
 * true s meets that, and the largest s that does is it as soon as the
 * queue ran empty once in the window (a synchronizing call): then some
 * dequeue ran before the next enqueue began.
 */
static void pair_fifo(struct profcall *calls, size_t ncalls,
		      const struct queue_call *e, size_t ne,
		      const struct queue_call *d, size_t nd)
{
	long long s = 1, bound;
	size_t j;

	for (j = 0; j < nd; j++) {
		bound = (long long)started_by(calls, e, ne,
					      op_time(calls, ncalls, d[j].call)) -
			1 - (long long)j;
		if (bound < s)
			s = bound;
	}
	for (j = 0; j < nd; j++) {
		long long i = (long long)j + s;

		if (i >= 0 && i < (long long)ne)
			give(calls, ncalls, d[j].call, e[i].call);
	}
}

static bool same_key(const struct queue_call *a, const struct queue_call *b)
{
	return a->key_kind == b->key_kind && a->key == b->key;
}

int queue_match(struct profcall *calls, size_t ncalls, struct queue_call *qc,
		size_t nqc)
{
	const struct queue_call *e, *d;
	size_t i, ne, nd;

	if (!nqc)	/* qsort_r() wants an array, even of nothing */
		return 0;
	qsort_r(qc, nqc, sizeof(*qc), by_key_role_start, calls);
	for (i = 0; i < nqc; i += ne + nd) {
		e = &qc[i];
		for (ne = 0; i + ne < nqc && same_key(&e[ne], e) &&
			     e[ne].role == MSPROF_ROLE_ENQUEUE; ne++)
			;
		d = e + ne;
		for (nd = 0; i + ne + nd < nqc && same_key(&d[nd], e) &&
			     d[nd].role == MSPROF_ROLE_DEQUEUE; nd++)
			;
		if (!ne && !nd)
			return -EINVAL;	/* a call of neither role */
		if (e->key_kind == MSPROF_QUEUE_KEY_FIFO)
			pair_fifo(calls, ncalls, e, ne, d, nd);
		else
			pair_items(calls, ncalls, e, ne, d, nd);
	}
	return 0;
}

int profdata_queue_match(struct profdata *p)
{
	struct queue_call *qc;
	const struct profcall *c;
	size_t i, n = 0;
	int err;

	if (!p->nqueue)
		return 0;
	qc = calloc(p->nqueue, sizeof(*qc));
	if (!qc)
		return -ENOMEM;
	for (i = 0; i < p->nqueue; i++) {
		const struct queue_seen *q = &p->queue[i];

		c = bsearch(&q->at, p->calls, p->ncalls, sizeof(*c), profdata_by_tid_start);
		if (!c)
			continue;
		qc[n++] = (struct queue_call){
			.key = q->key, .call = (uint32_t)(c - p->calls),
			.role = (uint8_t)q->func->role,
			.key_kind = (uint8_t)q->func->key_kind,
		};
	}
	err = queue_match(p->calls, p->ncalls, qc, n);
	free(qc);
	return err;
}
