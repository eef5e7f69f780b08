// SPDX-License-Identifier: MIT
/* Reading a PROF_ directory's raw data back: an index, then walks. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/growarr.h"
#include "common/printable.h"
#include "msprof/mstx.h"
#include "msprof/probe_packs.h"
#include "msprof/sched.h"
#include "mstx.h"
#include "osrt.h"
#include "profdata.h"
#include "common/proflayout.h"
#include "common/safe_open.h"
#include "tstate.h"

/* The name blob: the API's name, then one string per argument. */
static int describe_api(struct api_desc *d, const struct msprof_name_rec *nr,
			size_t len)
{
	const char *p, *end;
	int i;

	free(d->name);
	memset(d, 0, sizeof(*d));
	/* One more byte: a NUL even if the record was cut short. */
	d->name = calloc(1, len + 1);
	if (!d->name)
		return -ENOMEM;
	memcpy(d->name, nr->names, len);
	d->layer = nr->layer;
	d->queue = msprof_probe_queue_func(d->name, d->layer);
	/* A key past the registers kept is a table's mistake: no match. */
	if (d->queue && d->queue->key >= MSPROF_PROBE_ARGS)
		d->queue = NULL;
	end = d->name + len;
	p = d->name + strlen(d->name) + 1;
	for (i = 0; i < MSPROF_PROBE_ARGS && p < end; i++) {
		d->kinds[i] = nr->arg_kinds[i];
		d->args[i] = p;
		p += strlen(p) + 1;
	}
	return 0;
}

static void latest(struct profdata *p, uint64_t ns)
{
	if (ns > p->end_mono_ns)
		p->end_mono_ns = ns;
}

/* Threads come in runs in a file: the last one seen is checked first. */
static int note_tid(struct profdata *p, uint32_t tid)
{
	uint32_t *slot;

	if (p->ntids && p->tids[p->ntids - 1] == tid)
		return 0;
	slot = growarr_push((void **)&p->tids, &p->ntids, &p->cap_tids, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	*slot = tid;
	return 0;
}

static int add_call(struct profdata *p, const struct msprof_api_event *e)
{
	struct profcall *c = growarr_push((void **)&p->calls, &p->ncalls, &p->cap_calls,
				  sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->start_ns = e->start_ns;
	c->end_ns = e->end_ns;
	c->ns_tid = e->ns_tid;
	c->api_id = (uint16_t)(e->api_id < MSPROF_MAX_APIS ? e->api_id : UINT16_MAX);
	c->depth = (uint16_t)(e->depth < UINT16_MAX ? e->depth : UINT16_MAX);
	/* A stack's record comes before its call's: taken at the entry. */
	c->stack = pystacks_chain(&p->py, e->stack_id);
	c->enqueue = 0;	/* queue_match.c's, once the calls are indexed */
	latest(p, e->end_ns);
	if (c->api_id < MSPROF_MAX_APIS && p->apis_desc[c->api_id].queue) {
		struct queue_seen *q = growarr_push((void **)&p->queue, &p->nqueue,
						    &p->cap_queue, sizeof(*q));

		if (!q)
			return -ENOMEM;
		*q = (struct queue_seen){ .at = *c, .func = p->apis_desc[c->api_id].queue,
					  .key = e->args[p->apis_desc[c->api_id].queue->key] };
	}
	if (!p->meta.pid)	/* a window cut before info.json said it */
		p->meta.pid = (int)e->tgid;
	return note_tid(p, e->tid);
}

/* A task_time.data task's type, as its name says it (npusim's, CUPTI's). */
enum devtask_type profdata_type_of_name(const char *name, size_t len)
{
	if (len >= 6 && !strncmp(name, "MEMCPY", 6))
		return DT_MEMCPY_ASYNC;
	if (len >= 6 && !strncmp(name, "MEMSET", 6))
		return DT_MEMSET;
	/* A collective's task, as npusim's libhccl names it after CANN's ops. */
	if (len >= 5 && !strncmp(name, "hcom_", 5))
		return DT_HCCL;
	return DT_AI_CORE;	/* KERNEL once its launch is known to be CUDA's */
}

static int add_task(struct profdata *p, const struct msprof_devtask_rec *r,
		    size_t len)
{
	struct devtask *t = growarr_push((void **)&p->tasks, &p->ntasks, &p->cap_tasks,
				 sizeof(*t));
	size_t n = strnlen(r->name, len);

	if (!t)
		return -ENOMEM;
	*t = (struct devtask){
		.device = (uint16_t)r->device, .stream = r->stream,
		.task_id = r->task_id, .host_tid = r->host_tid,
		.submit_ns = r->submit_ns, .start_ns = r->start_ns,
		.end_ns = r->end_ns,
	};
	latest(p, r->end_ns);
	return profdata_op_named(p, r->name, n, profdata_type_of_name(r->name, n),
				 r->block_dim, &t->op);
}

/* recfile_read_fd() passes only lengths a record of its type can have. */
static int index_rec(uint16_t type, const void *body, size_t len, void *ctx)
{
	const struct msprof_ioctl_event *io = body;
	const struct msprof_name_rec *nr = body;
	struct profdata *p = ctx;

	switch (type) {
	case MSPROF_REC_NAME:
		if (nr->id >= MSPROF_MAX_APIS)
			return 0;
		return describe_api(&p->apis_desc[nr->id], nr, len - sizeof(*nr));
	case MSPROF_REC_API:
		return add_call(p, body);
	case MSPROF_REC_IOCTL:
		latest(p, io->end_ns);
		if (!p->meta.pid)
			p->meta.pid = (int)io->tgid;
		return note_tid(p, io->tid) ?:
		       osrt_add_ioctl(&p->osrt, io->tid, io->start_ns, io->end_ns);
	case MSPROF_REC_OSRT:
		if (len >= sizeof(struct msprof_osrt_event))
			latest(p, ((const struct msprof_osrt_event *)body)->end_ns);
		return osrt_add(&p->osrt, body, len);
	case MSPROF_REC_DEVTASK:
		return add_task(p, body, len - sizeof(struct msprof_devtask_rec));
	case MSPROF_REC_MSTX:
		latest(p, ((const struct msprof_mstx_event *)body)->end_ns);
		return mstx_add(&p->mstx, body, len);
	case MSPROF_REC_SCHED:
		latest(p, ((const struct msprof_sched_event *)body)->ts_ns);
		return tstate_add(&p->tstate, body, len);
	case MSPROF_REC_PYSTACK:
		return pystacks_add_stack(&p->py, body, len);
	case MSPROF_REC_PYCODE:
		return pystacks_add_code(&p->py, body, len);
	}
	return 0;	/* a newer record type: skip it */
}

int profdata_by_tid_start(const void *a, const void *b)
{
	const struct profcall *x = a, *y = b;

	if (x->ns_tid != y->ns_tid)
		return x->ns_tid < y->ns_tid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static int by_device_start(const void *a, const void *b, void *arg)
{
	const struct devtask *x = a, *y = b;

	(void)arg;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->stream < y->stream ? -1 : x->stream > y->stream;
}

static int by_value(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void add_problem(struct profdata *p, const char *file, uint64_t offset,
			const char *what, bool kept)
{
	struct profdata_problem *pb;
	unsigned int i;

	for (i = 0; i < p->nproblems && i < PROFDATA_MAX_PROBLEMS; i++) {
		pb = &p->problems[i];
		if (pb->count && !strcmp(pb->file, file) && !strcmp(pb->what, what)) {
			pb->count++;
			return;
		}
	}
	p->nkept += kept;
	if (p->nproblems++ >= PROFDATA_MAX_PROBLEMS)
		return;
	pb = &p->problems[p->nproblems - 1];
	snprintf(pb->file, sizeof(pb->file), "%s", file);
	printable_as(pb->file, true);
	snprintf(pb->what, sizeof(pb->what), "%s", what);
	pb->err = -EILSEQ;
	pb->stop.offset = offset;
	pb->count = 1;
	pb->kept = kept;
}

void profdata_problem(struct profdata *p, const char *file, uint64_t offset,
		      const char *what)
{
	add_problem(p, file, offset, what, false);
}

void profdata_note(struct profdata *p, const char *file, uint64_t offset,
		   const char *what)
{
	add_problem(p, file, offset, what, true);
}

void profdata_problem_str(char *buf, size_t len, const struct profdata_problem *pb)
{
	if (!pb->count) {
		recfile_strerror(buf, len, pb->err, &pb->stop);
		return;
	}
	if (pb->count == 1)
		snprintf(buf, len, "offset %llu: %s", (unsigned long long)pb->stop.offset,
			 pb->what);
	else
		snprintf(buf, len, "offset %llu: %s (%llu times; the first)",
			 (unsigned long long)pb->stop.offset, pb->what,
			 (unsigned long long)pb->count);
}

/* Reads one data file; only running out of memory stops the load. */
static int load_file(struct profdata *p, const char *name)
{
	struct recfile_stop stop = { 0 };
	struct stat st;
	int err, fd = safe_open_beneath(p->dirfd, name, &st);

	if (fd == -ENOENT)
		return 0;
	err = fd < 0 ? fd : recfile_read_fd(fd, NULL, index_rec, p, &stop);
	if (fd >= 0)
		close(fd);
	if (!err || err == -ENOMEM)
		return err;
	profdata_unread(p, name, err, &stop);
	return 0;
}

void profdata_unread(struct profdata *p, const char *file, int err,
		     const struct recfile_stop *stop)
{
	struct profdata_problem *pb;

	if (p->nproblems++ >= PROFDATA_MAX_PROBLEMS)
		return;
	pb = &p->problems[p->nproblems - 1];
	snprintf(pb->file, sizeof(pb->file), "%s", file);
	/* A device_ name is whatever was made there; also in the timeline. */
	printable_as(pb->file, true);
	pb->err = err;
	pb->stop = *stop;
}

/* A device_<N> entry's data file; the window's other entries are not. */
static int load_device(int dirfd, const char *entry, void *ctx)
{
	char name[NAME_MAX + sizeof(PROFDIR_DEVICE_FILE) + 1];

	(void)dirfd;
	if (strncmp(entry, PROFDIR_DEVICE_PREFIX, 7))
		return 0;
	snprintf(name, sizeof(name), "%s/%s", entry, PROFDIR_DEVICE_FILE);
	return load_file(ctx, name);
}

size_t profdata_sort_unique(uint32_t *v, size_t n)
{
	size_t i, kept = 0;

	if (!n)	/* qsort() wants an array, even of nothing */
		return 0;
	qsort(v, n, sizeof(*v), by_value);
	for (i = 0; i < n; i++)
		if (!kept || v[kept - 1] != v[i])
			v[kept++] = v[i];
	return kept;
}

static int by_tid_submit(const void *a, const void *b, void *arg)
{
	const struct devtask *tasks = arg;
	const struct devtask *x = &tasks[*(const uint32_t *)a];
	const struct devtask *y = &tasks[*(const uint32_t *)b];

	if (x->host_tid != y->host_tid)
		return x->host_tid < y->host_tid ? -1 : 1;
	return x->submit_ns < y->submit_ns ? -1 : x->submit_ns > y->submit_ns;
}

/* The calls still open, innermost last: an outermost call starts anew. */
struct open_calls {
	uint32_t *v;
	size_t n, cap;
};

static int open_call(struct open_calls *o, const struct profcall *c,
		     uint32_t i)
{
	uint32_t *top;

	if (!c->depth)
		o->n = 0;
	top = growarr_push((void **)&o->v, &o->n, &o->cap, sizeof(*o->v));
	if (!top)
		return -ENOMEM;
	*top = i;
	return 0;
}

/*
 * Each task's conn as profdata_conn_at() finds it, in one sweep over the
 * tasks in (thread, submit time) order beside the calls: looking back from
 * each task through the calls nested before it cost the square of the
 * nested calls of one outer call (the task chooses its device tasks'
 * threads and times, and how its calls nest).
 */
static int link_tasks(struct profdata *p)
{
	struct open_calls o = { 0 };
	uint32_t *order, tid = 0;
	size_t i, at = 0;
	int err = 0;

	if (!p->ntasks)
		return 0;
	order = malloc(p->ntasks * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < p->ntasks; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, p->ntasks, sizeof(*order), by_tid_submit, p->tasks);
	for (i = 0; i < p->ntasks && !err; i++) {
		struct devtask *t = &p->tasks[order[i]];

		if (!i || t->host_tid != tid)
			o.n = 0;
		tid = t->host_tid;
		for (; at < p->ncalls && (p->calls[at].ns_tid < tid ||
		       (p->calls[at].ns_tid == tid &&
			p->calls[at].start_ns <= t->submit_ns)); at++)
			if (p->calls[at].ns_tid == tid)
				err = err ?: open_call(&o, &p->calls[at], (uint32_t)at);
		while (o.n && p->calls[o.v[o.n - 1]].end_ns < t->submit_ns)
			o.n--;
		t->conn = o.n ? o.v[o.n - 1] + 1 : 0;
	}
	free(o.v);
	free(order);
	return err;
}

/* A task a CUDA call launched is a KERNEL: known once tasks are linked. */
static int cuda_types(struct profdata *p)
{
	size_t i;
	int err;

	for (i = 0; i < p->ntasks; i++) {
		struct devtask *t = &p->tasks[i];
		const struct profcall *c = profdata_call(p, t->conn);
		const struct api_desc *d = c ? profdata_desc(p, c->api_id) : NULL;
		struct devop op = p->ops[t->op];

		if (op.type != DT_AI_CORE || !d ||
		    (d->layer != MSPROF_LAYER_CUDA_RUNTIME &&
		     d->layer != MSPROF_LAYER_CUDA_DRIVER))
			continue;
		op.type = DT_KERNEL;
		err = profdata_op(p, &op, &t->op);
		if (err)
			return err;
	}
	return 0;
}

int profdata_read_ours(struct profdata *p, int dirfd)
{
	int err;

	memset(p, 0, sizeof(*p));
	p->dirfd = -1;
	err = profmeta_read(&p->meta, dirfd);
	if (err)
		return err;
	p->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if (p->dirfd < 0)
		return -errno;
	err = load_file(p, PROFDIR_HOST_FILE);
	if (!err)
		err = fsutil_dir_for_each(dirfd, load_device, p);
	if (err)
		return err;
	if (p->meta.end.mono_ns)	/* else the window never closed */
		p->end_mono_ns = p->meta.end.mono_ns;
	/* qsort() wants an array, even of nothing. */
	if (p->ncalls)
		qsort(p->calls, p->ncalls, sizeof(*p->calls), profdata_by_tid_start);
	return 0;
}

void profdata_latest(struct profdata *p, uint64_t ns)
{
	latest(p, ns);
}

int profdata_index(struct profdata *p)
{
	int err = profdata_sort_tasks(p, by_device_start);

	/* Threads repeat across runs: sorted, once each. */
	p->ntids = profdata_sort_unique(p->tids, p->ntids);
	return err ?: link_tasks(p) ?: cuda_types(p) ?: pystacks_finish(&p->py);
}

void profdata_strerror(char *buf, size_t len, int err)
{
	profmeta_strerror(buf, len, err);
}

void profdata_free_model(struct profdata *p)
{
	size_t i;

	for (i = 0; i < MSPROF_MAX_APIS; i++)
		free(p->apis_desc[i].name);
	free(p->calls);
	free(p->tids);
	free(p->tasks);
	free(p->ops);
	free(p->op_slots);
	free(p->copies);
	free(p->hccls);
	strtab_free(&p->names);
	mstx_free(p->mstx);
	tstate_free(p->tstate);
	osrt_free(p->osrt);
	pystacks_free(&p->py);
	if (p->dirfd >= 0)
		close(p->dirfd);
	memset(p, 0, sizeof(*p));
	p->dirfd = -1;
}

const struct api_desc *profdata_desc(const struct profdata *p, uint32_t api_id)
{
	return api_id < MSPROF_MAX_APIS && p->apis_desc[api_id].name ?
	       &p->apis_desc[api_id] : NULL;
}

bool profdata_arg(const struct api_desc *d, const struct msprof_api_event *e,
		  const char *name, uint64_t *v)
{
	int i;

	for (i = 0; d && i < MSPROF_PROBE_ARGS; i++)
		if (d->args[i] && !strcmp(d->args[i], name)) {
			*v = e->args[i];
			return true;
		}
	return false;
}

const struct profcall *profdata_call(const struct profdata *p, uint64_t conn)
{
	return conn && conn <= p->ncalls ? &p->calls[conn - 1] : NULL;
}

uint64_t profdata_conn_at(const struct profdata *p, uint32_t tid, uint64_t ns)
{
	size_t lo = 0, hi = p->ncalls;

	/* The first call on tid that starts after ns... */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct profcall *c = &p->calls[mid];

		if (c->ns_tid < tid || (c->ns_tid == tid && c->start_ns <= ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ...then back to the latest-starting one that still holds ns. */
	while (lo-- > 0) {
		const struct profcall *c = &p->calls[lo];

		if (c->ns_tid != tid)
			break;
		if (c->end_ns >= ns)
			return lo + 1;
		if (!c->depth)
			break;	/* an outermost call that ended: none holds ns */
	}
	return 0;
}

/* How far from the last call found the next is looked for first. */
#define NEAR 4

/* Whether calls[i] is the only entry of the index with key's place. */
static bool only_one(const struct profdata *p, const struct profcall *key,
		     size_t i)
{
	return !profdata_by_tid_start(key, &p->calls[i]) &&
	       (i == 0 || profdata_by_tid_start(key, &p->calls[i - 1])) &&
	       (i + 1 == p->ncalls || profdata_by_tid_start(key, &p->calls[i + 1]));
}

/*
 * The connection id of a walked call: its place in the index.  A thread's
 * calls are walked in the order they ended, a few places apart in the
 * index, so the places near the last one found (*near) are tried before
 * a search of the whole index; one is taken there only if no other entry
 * has its key, where the search could have found another.
 */
static uint64_t conn_of(const struct profdata *p,
			const struct msprof_api_event *e, size_t *near)
{
	struct profcall key = {
		.start_ns = e->start_ns, .ns_tid = e->ns_tid,
		.depth = (uint16_t)(e->depth < UINT16_MAX ? e->depth : UINT16_MAX),
	};
	size_t i = *near > NEAR ? *near - NEAR : 0;
	const struct profcall *c;

	for (; i < p->ncalls && i <= *near + NEAR; i++)
		if (only_one(p, &key, i)) {
			*near = i;
			return i + 1;
		}
	c = p->ncalls ?
	    bsearch(&key, p->calls, p->ncalls, sizeof(*c), profdata_by_tid_start) : NULL;
	if (!c)
		return 0;
	*near = (size_t)(c - p->calls);
	return *near + 1;
}

struct walk {
	const struct profdata *p;
	profdata_api_fn api;
	profdata_ioctl_fn ioctl;
	profdata_osrt_fn osrt;
	void *ctx;
	size_t near;	/* where the last walked call was in the index */
};

static int walk_rec(uint16_t type, const void *body, size_t len, void *ctx)
{
	const struct msprof_osrt_event *e = body;
	struct msprof_ioctl_payload_event io;
	struct walk *w = ctx;

	if (type == MSPROF_REC_OSRT && w->osrt && len == sizeof(*e) &&
	    (e->h.what == OSRT_SYSCALL || e->h.what == OSRT_PTHREAD))
		return w->osrt(e, w->ctx);
	if (type == MSPROF_REC_API && w->api)
		return w->api(body, conn_of(w->p, body, &w->near), w->ctx);
	if (type != MSPROF_REC_IOCTL || !w->ioctl)
		return 0;
	/* A record without payload reads as payload_len 0. */
	memset(&io, 0, sizeof(io));
	memcpy(&io, body, len < sizeof(io) ? len : sizeof(io));
	return w->ioctl(&io, w->ctx);
}

static int walk_host(struct walk *w)
{
	int err, fd = safe_open_beneath(w->p->dirfd, PROFDIR_HOST_FILE,
					&(struct stat){ 0 });

	/* The load named a file it could not open, once, as a problem. */
	if (fd < 0)
		return 0;
	err = recfile_read_fd(fd, NULL, walk_rec, w, NULL);
	close(fd);
	/* What the load found cut short was said once, as a problem. */
	return err == -EBADMSG || err == -EILSEQ || err == -EPROTO ? 0 : err;
}

int profdata_each_host(const struct profdata *p, profdata_api_fn api,
		       profdata_ioctl_fn ioctl, void *ctx)
{
	struct walk w = { .p = p, .api = api, .ioctl = ioctl, .ctx = ctx };

	return walk_host(&w);
}

int profdata_each_osrt(const struct profdata *p, profdata_osrt_fn fn, void *ctx)
{
	struct walk w = { .p = p, .osrt = fn, .ctx = ctx };

	return p->osrt ? walk_host(&w) : 0;
}
