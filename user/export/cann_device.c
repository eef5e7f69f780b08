// SPDX-License-Identifier: MIT
/*
 * The device half (§3): each device_N's stars_soc start and end records
 * paired per (stream, task id) (§3.1), its ts_track flips counted into
 * batch ids (§4.2), and each task matched to its task_track by (stream,
 * task id, batch).  Tasks of no task_track are kept, named by their SQE
 * type, as Huawei's analysis shows them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cann.h"
#include "common/proflayout.h"
#include "cann_device.h"

static const char *const sqe_names[CANN_SQE_MAX + 1] = {
	"AI_CORE", "AI_CPU", "AIV_SQE", "PLACE_HOLDER_SQE", "EVENT_RECORD_SQE",
	"EVENT_WAIT_SQE", "NOTIFY_RECORD_SQE", "NOTIFY_WAIT_SQE",
	"WRITE_VALUE_SQE", "VQ6_SQE", "TOF_SQE", "SDMA_SQE", "VPC_SQE",
	"JPEGE_SQE", "JPEGD_SQE", "DSA_SQE", "ROCCE_SQE", "PCIE_DMA_SQE",
	"HOST_CPU_SQE", "CDQM_SQE", "C_CORE_SQE",
};

const char *cann_sqe_name(unsigned int sqe)
{
	return sqe <= CANN_SQE_MAX ? sqe_names[sqe] : "UNKNOWN_SQE";
}

/* §3.3, stream expansion off: the real stream and task ids. */
void cann_stars_ids(uint16_t stream, uint16_t task, uint32_t *s, uint32_t *t)
{
	if (stream & 0x1000) {
		*s = stream % 2048;
		*t = (uint32_t)((task & 0x1fff) | (stream & 0xe000));
	} else if (stream & 0x2000) {
		*s = (uint32_t)(task & 0x0fff) % 2048;
		*t = (uint32_t)((stream & 0x0fff) | (task & 0xf000));
	} else {
		*s = stream % 2048;
		*t = task;
	}
}

static int by_flip(const void *a, const void *b)
{
	const struct flip *x = a, *y = b;

	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

static int on_flip(const void *rec, const struct cann_src *s, void *ctx)
{
	struct dev_load *d = ctx;
	struct cann_ts_flip r;
	struct flip *v;

	memcpy(&r, rec, sizeof(r));
	(void)s;
	if (r.tag != CANN_TS_TAG_FLIP)
		return 0;	/* other tags (§3.4) tell nothing we show */
	if (d->nflips == d->cap_flips) {
		size_t cap = d->cap_flips ? d->cap_flips * 2 : 64;

		v = realloc(d->flips, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		d->flips = v;
		d->cap_flips = cap;
	}
	d->flips[d->nflips++] = (struct flip){ .stream = r.stream % 2048, .at = r.syscnt };
	return 0;
}

/* The stream's flips at or before the task's start: its batch. */
static uint16_t batch_of(const struct dev_load *d, uint32_t stream, uint64_t at)
{
	struct flip key = { .stream = stream, .at = at };
	size_t lo = 0, hi = d->nflips, first;

	while (lo < hi) {	/* the first of the stream */
		size_t mid = lo + (hi - lo) / 2;

		if (d->flips[mid].stream < stream)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	hi = d->nflips;
	while (lo < hi) {	/* past the last at or before at */
		size_t mid = lo + (hi - lo) / 2;

		if (by_flip(&d->flips[mid], &key) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint16_t)(lo - first);
}

static int by_key_task(const void *a, const void *b, void *arg)
{
	uint64_t x = devtask_key(a), y = devtask_key(b);

	(void)arg;
	return (x > y) - (x < y);
}

/* The host task of key among the sorted ones; NULL if none. */
static struct devtask *host_task(struct dev_load *d, uint64_t key)
{
	struct devtask *v = d->p->tasks + d->from;
	size_t lo = 0, hi = d->nhost;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k = devtask_key(&v[mid]);

		if (k == key)
			return &v[mid];
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int sqe_op(struct profdata *p, uint32_t op, unsigned int sqe, uint32_t *id)
{
	struct devop o = p->ops[op];

	o.sqe = (uint8_t)sqe;
	return profdata_op(p, &o, id);
}

/* A task of no task_track: its SQE type is all there is to name it. */
static int unmatched_op(struct profdata *p, unsigned int sqe, uint32_t *id)
{
	const char *name = cann_sqe_name(sqe);
	uint32_t op;
	int err = profdata_op_named(p, name, strlen(name), DT_UNKNOWN, 0, &op);

	if (!err)
		err = strtab_intern(&p->names, name, strlen(name), &p->ops[op].rt_type) ?:
		      strtab_intern(&p->names, "N/A", 3, &p->ops[op].kernel) ?:
		      sqe_op(p, op, sqe, id);
	return err;
}

/* One paired task: onto its host task, or kept alone. */
static int place_task(struct dev_load *d, const struct stars_open *o,
		      uint64_t end, const struct cann_src *s)
{
	struct profdata *p = d->p;
	struct devtask key = {
		.device = (uint16_t)d->dev, .stream = o->stream, .task_id = o->task,
		.batch = batch_of(d, o->stream, o->at),
	};
	struct devtask *t = host_task(d, devtask_key(&key));
	uint64_t start_ns = cann_lin_map(&d->c->mono, cann_lin_map(d->lin, o->at));
	uint64_t end_ns = cann_lin_map(&d->c->mono, cann_lin_map(d->lin, end));

	if (t && (t->start_ns || t->end_ns)) {
		key = *t;	/* one host task, more device tasks (§4.2) */
		t = NULL;
	} else if (!t) {
		/*
		 * Shown under its SQE type's name, as Huawei's are.  Before its
		 * stream's first tracked task it was submitted before the
		 * runtime's window opened: nothing wrong.  After, its
		 * task_track went missing: said.
		 */
		if (d->tracked[o->stream / 64] >> (o->stream % 64) & 1)
			cann_note(s, "a device task with no task_track, named by its SQE type");
		if (unmatched_op(p, o->sqe, &key.op))
			return -ENOMEM;
	} else {
		d->tracked[o->stream / 64] |= 1ull << (o->stream % 64);
	}
	if (!t) {
		if (p->ntasks == p->cap_tasks) {
			cann_fault(s, "more device tasks than the files' sizes held");
			return 0;
		}
		t = &p->tasks[p->ntasks++];
		*t = key;
	}
	t->start_ns = start_ns;
	t->end_ns = end_ns > start_ns ? end_ns : start_ns;
	return sqe_op(p, t->op, o->sqe, &t->op);
}

/*
 * Keeps o waiting; of it and one of its ids and kind already waiting, the
 * one keep_later says stays, the other a fault.
 */
static int wait_for_pair(struct dev_load *d, const struct stars_open *o,
			 const struct cann_src *s, bool keep_later)
{
	struct stars_open was, kept;
	int put = stars_open_put(&d->open, o, &was);

	if (put <= 0)
		return put;
	if ((was.at > o->at) == keep_later) {
		kept = was;
		put = stars_open_put(&d->open, &kept, &was);
		was = *o;
	}
	stars_fault(d, s, &was, o->end ? "an end without its start" :
		    "a start without its end");
	return put < 0 ? put : 0;
}

/* A start: an end of its ids not before it that came first closes it. */
static int on_start(struct dev_load *d, const struct stars_open *o,
		    const struct cann_src *s)
{
	struct stars_open key = *o, e;

	key.end = true;
	if (stars_open_take(&d->open, &key, &e)) {
		if (e.at >= o->at)
			return place_task(d, o, e.at, s);
		if (stars_open_put(&d->open, &e, &e) < 0)
			return -ENOMEM;
	}
	return wait_for_pair(d, o, s, true);
}

/* An end: the latest start of its ids not after it, else it waits. */
static int on_end(struct dev_load *d, const struct stars_open *o,
		  const struct cann_src *s)
{
	struct stars_open key = *o, st;

	key.end = false;
	if (stars_open_take(&d->open, &key, &st)) {
		if (st.at <= o->at)
			return place_task(d, &st, o->at, s);
		if (stars_open_put(&d->open, &st, &st) < 0)
			return -ENOMEM;
	}
	return wait_for_pair(d, o, s, false);
}

static int on_stars(const void *rec, const struct cann_src *s, void *ctx)
{
	struct dev_load *d = ctx;
	struct cann_stars_log r;
	struct stars_open o;
	unsigned int func, sqe;
	char what[64];

	memcpy(&r, rec, sizeof(r));
	if (!s->off)	/* the starts left open are said to be of the last */
		snprintf(d->open.file, sizeof(d->open.file), "%s", s->file);
	if (r.magic != CANN_STARS_MAGIC) {
		snprintf(what, sizeof(what), "wrong magic 0x%04x", r.magic);
		cann_fault(s, what);
		return 0;
	}
	func = r.head & 0x3f;
	sqe = r.head >> 10;
	if (func != CANN_STARS_START && func != CANN_STARS_END)
		return 0;	/* ffts, pmu, ... logs: not ours to show */
	if (sqe > CANN_SQE_MAX) {
		snprintf(what, sizeof(what), "unknown SQE type %u", sqe);
		cann_fault(s, what);
		return 0;
	}
	o = (struct stars_open){ .at = r.syscnt, .sqe = (uint8_t)sqe, .off = s->off,
				 .end = func == CANN_STARS_END };
	cann_stars_ids(r.stream, r.task_id, &o.stream, &o.task);
	return o.end ? on_end(d, &o, s) : on_start(d, &o, s);
}

static int load_device(struct profdata *p, struct cann *c, unsigned int n,
		       size_t from, size_t nhost)
{
	struct dev_load d = {
		.p = p, .c = c, .dev = n, .lin = &c->dev[n], .from = from,
		.nhost = nhost,
	};
	char dir[32], kind[48];
	int err;

	snprintf(dir, sizeof(dir), PROFDIR_DEVICE_PREFIX "%u/" PROFDIR_DATA, n);
	snprintf(kind, sizeof(kind), "ts_track.data.%u", n);
	err = cann_each_rec(p, dir, kind, false, sizeof(struct cann_ts_flip), false,
			    on_flip, &d);
	if (!err && d.nflips)
		qsort(d.flips, d.nflips, sizeof(*d.flips), by_flip);
	snprintf(kind, sizeof(kind), "stars_soc.data.%u", n);
	err = err ?: cann_each_rec(p, dir, kind, false, sizeof(struct cann_stars_log),
				   false, on_stars, &d);
	if (!err)
		stars_open_flush(&d);
	free(d.flips);
	stars_open_free(&d.open);
	return err;
}

/* Where the first task_track of no device task is, for its fault. */
struct track_at {
	const struct cann *c;
	const struct devtask *t;
	char file[2 * NAME_MAX + 8];
	uint64_t off;
	bool found;
};

static int find_track(const void *rec, const struct cann_src *s, void *ctx)
{
	struct track_at *at = ctx;
	struct cann_task_track r;

	memcpy(&r, rec, sizeof(r));
	if (at->found || r.head.magic != CANN_MAGIC ||
	    r.head.type != CANN_RT_TASK_TRACK || r.stream != at->t->stream ||
	    r.task_id != at->t->task_id || r.head.thread_id != at->t->host_tid ||
	    cann_host_ns(at->c, r.head.timestamp) != at->t->submit_ns)
		return 0;
	snprintf(at->file, sizeof(at->file), "%s", s->file);
	at->off = s->off;
	at->found = true;
	return 0;
}

/* Host tasks of no device task of one kind: how many, and the first. */
struct unmet {
	size_t n;
	struct devtask first;
};

static void unmet_add(struct unmet *u, const struct devtask *t)
{
	if (!u->n++)
		u->first = *t;
}

/* Named once, with the first one's file and offset. */
static void unmet_say(struct profdata *p, const struct cann *c,
		      const struct unmet *u, const char *what)
{
	struct track_at at = { .c = c, .t = &u->first };
	const struct devtask *f = &u->first;
	char line[160];

	if (!u->n)
		return;
	snprintf(line, sizeof(line),
		 "%zu task_tracks %s (the first: device %u stream %u task %u batch %u)",
		 u->n, what, f->device, f->stream, f->task_id, f->batch);
	/* Looked for again only now: the tasks keep no place in a file. */
	if (cann_each_rec(p, "host/data", "compact.task_track", true,
			  CANN_COMPACT_SIZE, true, find_track, &at) || !at.found)
		snprintf(at.file, sizeof(at.file), "host/data/*.compact.task_track.*");
	profdata_problem(p, at.file, at.off, line);
}

static bool met(const struct devtask *t)
{
	return t->start_ns || t->end_ns;
}

static bool same_stream(const struct devtask *a, const struct devtask *b)
{
	return a->device == b->device && a->stream == b->stream;
}

/*
 * Host tasks no device task met are not drawn (§4.2).  Those after the
 * last task their stream ran were still queued when the window ended:
 * nothing wrong, nothing said.  One before a task that ran is a task
 * lost.  The host tasks are [from, from + nhost), by key: a stream's in
 * order.
 */
static void drop_host_only(struct profdata *p, const struct cann *c,
			   size_t from, size_t nhost)
{
	struct unmet lost = { 0 };
	size_t i, j, last, kept = from;

	for (i = from; i < from + nhost; i = j) {
		for (j = i, last = SIZE_MAX; j < from + nhost &&
		     same_stream(&p->tasks[i], &p->tasks[j]); j++)
			if (met(&p->tasks[j]))
				last = j;
		for (; i < j; i++)
			if (!met(&p->tasks[i]) && last != SIZE_MAX && i < last)
				unmet_add(&lost, &p->tasks[i]);
	}
	for (i = from; i < p->ntasks; i++)
		if (met(&p->tasks[i]))
			p->tasks[kept++] = p->tasks[i];
	p->ntasks = kept;
	unmet_say(p, c, &lost, "with no device task");
}

int cann_devices_load(struct profdata *p, struct cann *c, size_t from)
{
	size_t nhost = p->ntasks - from;
	unsigned int n;
	int err = profdata_sort_range(p, from, nhost, by_key_task);

	for (n = 0; n < CANN_MAX_DEVICES && !err; n++)
		if (c->dev_known[n])
			err = load_device(p, c, n, from, nhost);
	if (!err)
		drop_host_only(p, c, from, nhost);
	return err;
}
