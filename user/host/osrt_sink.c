// SPDX-License-Identifier: MIT
/* A target's osrt records: its host file's, and msprof's two text files. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/osrt_text.h"
#include "common/textslice.h"
#include "msprof/osrt.h"
#include "osrt_sink.h"
#include "syscall_names.h"

/*
 * Lines are written a chunk at a time (a write(2) per 64 KiB, not per
 * line); a chunk holds whole lines, so a slice of the file never cuts one.
 */
#define CHUNK		(64u << 10)
/* Syscall numbers named in the host file once each; larger ones never. */
#define MAX_NR		4096
/*
 * Threads whose names the lines carry; past them a thread's line names
 * the task (a target that makes threads by the hundred thousand).
 */
#define MAX_THREADS	(1u << 16)

struct text {
	struct textslice ts;
	size_t len;
	char buf[CHUNK];
};

struct thread {
	uint32_t tid;		/* msprof's view; 0: a free slot */
	uint32_t ns_tid;
	char name[OSRT_COMM_MAX];
};

struct osrt_sink {
	struct text sys, pth;
	uint64_t raw_minus_mono;	/* a record's time as the lines count it */
	char comm[OSRT_COMM_MAX];	/* the task's, cleaned */
	const struct probe_set *ps;
	uint8_t named[MAX_NR / 8];
	struct thread *threads;	/* open addressing, a power of two slots */
	size_t nthreads, cap;
	struct osrt_counts n;
};

static int text_flush(struct text *t)
{
	int err = t->len ? textslice_write(&t->ts, t->buf, t->len) : 0;

	t->len = 0;
	return err;
}

/* Room for one more line, the chunk written first if it has none. */
static char *text_room(struct text *t, int *err)
{
	*err = 0;
	if (t->len + OSRT_LINE_MAX > sizeof(t->buf))
		*err = text_flush(t);
	return t->buf + t->len;
}

static struct thread *slot_of(const struct osrt_sink *s, uint32_t tid)
{
	size_t i = (tid * 2654435761u) & (s->cap - 1);

	while (s->threads[i].tid && s->threads[i].tid != tid)
		i = (i + 1) & (s->cap - 1);
	return &s->threads[i];
}

/* The thread's slot, made if it has none; NULL past MAX_THREADS. */
static struct thread *thread_of(struct osrt_sink *s, uint32_t tid, int *err)
{
	struct thread *old = s->threads, *t;
	size_t i, cap = s->cap;

	*err = 0;
	if (s->cap && (t = slot_of(s, tid))->tid)
		return t;
	if (s->nthreads >= MAX_THREADS)
		return NULL;
	if ((s->nthreads + 1) * 2 > s->cap) {
		s->cap = cap ? cap * 2 : 64;
		s->threads = calloc(s->cap, sizeof(*s->threads));
		if (!s->threads) {
			s->threads = old;
			s->cap = cap;
			*err = -ENOMEM;
			return NULL;
		}
		for (i = 0; i < cap; i++)
			if (old[i].tid)
				*slot_of(s, old[i].tid) = old[i];
		free(old);
	}
	t = slot_of(s, tid);
	t->tid = tid;
	s->nthreads++;
	return t;
}

static const struct thread *known_thread(const struct osrt_sink *s, uint32_t tid)
{
	const struct thread *t = s->cap ? slot_of(s, tid) : NULL;

	return t && t->tid ? t : NULL;
}

int osrt_sink_open(struct osrt_sink **out, const struct osrt_sink_conf *c)
{
	struct osrt_sink *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	osrt_clean_name(s->comm, c->comm, OSRT_COMM_MAX);
	s->raw_minus_mono = c->start.raw_ns - c->start.mono_ns;
	s->ps = c->ps;
	err = textslice_init(&s->sys.ts, c->dir, "host_syscall.data") ?:
	      textslice_init(&s->pth.ts, c->dir, "host_pthreadcall.data");
	if (err) {
		free(s);
		return err;
	}
	s->sys.len = osrt_perf_sentinel(s->sys.buf, c->start.raw_ns, s->comm, c->pid);
	s->pth.len = osrt_ltrace_sentinel(s->pth.buf, c->start.raw_ns, s->comm, c->pid);
	*out = s;
	return 0;
}

/* The name a syscall's record carries, in the host file before its first. */
static int name_syscall(struct osrt_sink *s, struct recfile *f, uint32_t nr,
			const char **name)
{
	struct msprof_osrt_sysname rec = { .kind = MSPROF_EV_OSRT,
					   .what = OSRT_SYSNAME, .nr = nr };

	*name = syscall_name(nr);
	if (!*name || nr >= MAX_NR || (s->named[nr / 8] & (1u << nr % 8)))
		return 0;
	s->named[nr / 8] |= (uint8_t)(1u << nr % 8);
	return recfile_append(f, MSPROF_REC_OSRT, &rec, sizeof(rec), *name,
			      strnlen(*name, MSPROF_OSRT_NAME_MAX));
}

/* A syscall's line, its thread named as its last name record said. */
static int syscall_line(struct osrt_sink *s, uint32_t tid, uint32_t ns_tid,
			const char *name, uint64_t start, uint64_t end,
			const uint64_t *args, unsigned int nargs, int64_t ret)
{
	const struct thread *t = known_thread(s, tid);
	struct osrt_line_call c = {
		.raw_ns = start + s->raw_minus_mono, .dur_ns = end - start,
		.who = t ? t->name : s->comm, .tid = t ? t->ns_tid : ns_tid,
		.name = name, .args = args, .nargs = nargs, .ret = ret,
	};
	int err;
	char *at = text_room(&s->sys, &err);

	if (err)
		return err;
	s->sys.len += osrt_perf_line(at, &c);
	s->n.syscalls++;
	return 0;
}

/* The record's registers as the lines take them (__u64 is not uint64_t). */
static void args_of(const struct msprof_osrt_event *e, uint64_t *args)
{
	unsigned int i;

	for (i = 0; i < MSPROF_OSRT_ARGS; i++)
		args[i] = e->args[i];
}

static int add_syscall(struct osrt_sink *s, struct recfile *f,
		       const struct msprof_osrt_event *e)
{
	uint64_t args[MSPROF_OSRT_ARGS];
	char unnamed[32];
	const char *name;
	int err = name_syscall(s, f, e->id, &name);

	if (!name) {
		snprintf(unnamed, sizeof(unnamed), "syscall_%u", e->id);
		name = unnamed;
	}
	args_of(e, args);
	return err ?: syscall_line(s, e->h.tid, e->h.ns_tid, name, e->start_ns,
				   e->end_ns, args, MSPROF_OSRT_ARGS, e->ret);
}

/* One of msprof's four is an ltrace line; a blocking call is ours alone. */
static int add_pthread(struct osrt_sink *s, const struct msprof_osrt_event *e)
{
	const struct probe *p = e->id < s->ps->n ? &s->ps->v[e->id] : NULL;
	uint64_t args[MSPROF_OSRT_ARGS];
	struct osrt_line_call c = {
		.raw_ns = e->start_ns + s->raw_minus_mono,
		.dur_ns = e->end_ns - e->start_ns, .who = s->comm, .tid = e->h.ns_tid,
		.args = args, .ret = e->ret,
	};
	char *at;
	int err;

	if (!p || p->layer != MSPROF_LAYER_OSRT)
		return 0;
	if (msprof_probe_kind(p->name, MSPROF_LAYER_OSRT) != OSRT_KIND_KEPT) {
		s->n.blocking++;
		return 0;
	}
	c.name = p->name;
	args_of(e, args);
	while (c.nargs < MSPROF_OSRT_ARGS && p->args[c.nargs].name)
		c.nargs++;
	at = text_room(&s->pth, &err);
	if (err)
		return err;
	s->pth.len += osrt_ltrace_line(at, &c);
	s->n.pthread_calls++;
	return 0;
}

static int add_comm(struct osrt_sink *s, const struct msprof_osrt_comm *c)
{
	int err;
	struct thread *t = thread_of(s, c->h.tid, &err);

	if (!t)
		return err;
	t->ns_tid = c->h.ns_tid;
	osrt_clean_name(t->name, c->comm, sizeof(c->comm));
	return 0;
}

int osrt_sink_add(struct osrt_sink *s, struct recfile *f, const void *rec,
		  size_t size)
{
	const struct msprof_osrt_event *e = rec;
	int err;

	if (size < sizeof(struct msprof_osrt_comm))
		return 0;
	err = recfile_append(f, MSPROF_REC_OSRT, rec, size, NULL, 0);
	if (err)
		return err;
	if (e->h.what == OSRT_COMM)
		return add_comm(s, rec);
	if (size < sizeof(*e))
		return 0;
	if (e->h.what == OSRT_SYSCALL)
		return add_syscall(s, f, e);
	if (e->h.what == OSRT_PTHREAD)
		return add_pthread(s, e);
	return 0;
}

int osrt_sink_ioctl(struct osrt_sink *s, const struct msprof_ioctl_event *e)
{
	const uint64_t args[3] = { e->fd, e->cmd, 0 };

	return syscall_line(s, e->tid, e->tid, "ioctl", e->start_ns, e->end_ns,
			    args, 2, e->ret);
}

int osrt_sink_close(struct osrt_sink *s, struct osrt_counts *out)
{
	int sys = text_flush(&s->sys), pth = text_flush(&s->pth);
	int sys_close = textslice_close(&s->sys.ts);
	int pth_close = textslice_close(&s->pth.ts);
	int err = sys ?: pth ?: sys_close ?: pth_close;

	*out = s->n;
	out->threads = s->nthreads;
	free(s->threads);
	free(s);
	return err;
}
