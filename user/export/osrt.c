// SPDX-License-Identifier: MIT
/* A window's OS runtime calls: our records counted, msprof's rows beside. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/growarr.h"
#include "msprof/osrt.h"
#include "osrt.h"

/* The id of a driver's ioctl, which names no syscall number of ours. */
#define IOCTL_ID UINT32_MAX

static int set_of(struct osrt_set **s)
{
	if (!*s)
		*s = calloc(1, sizeof(**s));
	return *s ? 0 : -ENOMEM;
}

static uint64_t call_key(uint8_t what, uint32_t id, uint32_t tid)
{
	return (uint64_t)what << 62 ^ (uint64_t)id << 32 ^ tid;
}

/* The stat of a call and thread, made if new. */
static struct osrt_stat *stat_of(struct osrt_set *s, uint8_t what, uint32_t id,
				 uint32_t tid, int *err)
{
	struct osrt_stat *st;
	uint32_t at;

	*err = 0;
	if (!idmap_get(&s->by_call, call_key(what, id, tid), &at))
		return &s->stats[at];
	st = growarr_push((void **)&s->stats, &s->nstats, &s->cap_stats, sizeof(*st));
	if (!st) {
		*err = -ENOMEM;
		return NULL;
	}
	*st = (struct osrt_stat){ .tid = tid, .id = id, .what = what,
				  .min_ns = UINT64_MAX, .ioctl = id == IOCTL_ID };
	*err = idmap_put(&s->by_call, call_key(what, id, tid),
			 (uint32_t)(s->nstats - 1));
	return *err ? NULL : st;
}

static int count_call(struct osrt_set *s, uint8_t what, uint32_t id,
		      uint32_t tid, uint64_t start_ns, uint64_t end_ns,
		      uint64_t blocked_ns)
{
	uint64_t d = end_ns > start_ns ? end_ns - start_ns : 0;
	int err;
	struct osrt_stat *st = stat_of(s, what, id, tid, &err);

	if (!st)
		return err;
	st->count++;
	st->sum_ns += d;
	st->blocked_ns += blocked_ns;
	if (d > st->max_ns)
		st->max_ns = d;
	if (d < st->min_ns)
		st->min_ns = d;
	return 0;
}

static int add_sysname(struct osrt_set *s, const struct msprof_osrt_sysname *n,
		       size_t len)
{
	size_t name_len = len - sizeof(*n);
	uint32_t id;
	int err;

	if (name_len > MSPROF_OSRT_NAME_MAX)
		name_len = MSPROF_OSRT_NAME_MAX;
	err = strtab_intern(&s->names, n->name, strnlen(n->name, name_len), &id);
	return err ?: idmap_put(&s->sysnames, n->nr, id);
}

int osrt_add(struct osrt_set **sp, const void *body, size_t len)
{
	const struct msprof_osrt_event *e = body;
	const struct msprof_osrt_comm *c = body;
	struct osrt_set *s;
	int err = set_of(sp);

	if (err)
		return err;
	s = *sp;
	if (len >= sizeof(struct msprof_osrt_sysname) && e->h.what == OSRT_SYSNAME)
		return add_sysname(s, body, len);
	if (len == sizeof(*c) && c->h.what == OSRT_COMM)
		return idmap_put(&s->ns_tids, c->h.tid, c->h.ns_tid);
	if (len != sizeof(*e) || (e->h.what != OSRT_SYSCALL && e->h.what != OSRT_PTHREAD))
		return 0;	/* a newer writer's: skipped */
	s->records++;
	return count_call(s, (uint8_t)e->h.what, e->id,
			  e->h.ns_tid, e->start_ns, e->end_ns, e->blocked_ns);
}

int osrt_add_ioctl(struct osrt_set **sp, uint32_t tid, uint64_t start_ns,
		   uint64_t end_ns)
{
	int err = set_of(sp);

	return err ?: count_call(*sp, OSRT_SYSCALL, IOCTL_ID, tid, start_ns,
				 end_ns, 0);
}

bool osrt_on(const struct osrt_set *s)
{
	return s && (s->records || s->files);
}

uint32_t osrt_ns_tid(const struct osrt_set *s, uint32_t tid)
{
	uint32_t ns;

	return s && !idmap_get(&s->ns_tids, tid, &ns) ? ns : tid;
}

const char *osrt_syscall_name(const struct osrt_set *s, uint32_t id,
			      char *buf, size_t len)
{
	uint32_t at;

	if (id == IOCTL_ID)
		return "ioctl";
	if (!idmap_get(&s->sysnames, id, &at))
		return strtab_str(&s->names, at);
	snprintf(buf, len, "syscall_%u", id);
	return buf;
}

/* Largest total first; then an order of its own. */
static int by_time(const void *a, const void *b)
{
	const struct osrt_stat *x = a, *y = b;

	if (x->sum_ns != y->sum_ns)
		return x->sum_ns > y->sum_ns ? -1 : 1;
	if (x->what != y->what)
		return x->what < y->what ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

int osrt_finish(struct osrt_set **sp, int dirfd, uint64_t pid)
{
	struct osrt_set *s = *sp;
	size_t i;
	int err;

	if (!s)
		return 0;
	err = osrt_msprof_load(s, dirfd, pid);
	if (err || !osrt_on(s)) {
		osrt_free(s);
		*sp = NULL;
		return err;
	}
	/* A driver's ioctl names its thread as msprof sees it. */
	for (i = 0; i < s->nstats; i++)
		if (s->stats[i].ioctl)
			s->stats[i].tid = osrt_ns_tid(s, s->stats[i].tid);
	if (s->nstats)
		qsort(s->stats, s->nstats, sizeof(*s->stats), by_time);
	return 0;
}

void osrt_free(struct osrt_set *s)
{
	if (!s)
		return;
	free(s->stats);
	free(s->rows);
	idmap_free(&s->by_call);
	idmap_free(&s->ns_tids);
	idmap_free(&s->sysnames);
	strtab_free(&s->names);
	free(s);
}
