// SPDX-License-Identifier: MIT
/* The window's user marks: records kept as read, then ranges paired. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/growarr.h"
#include "common/printable.h"
#include "msprof/mstx.h"
#include "idmap.h"
#include "mstx.h"

struct mstx_call {
	uint64_t start_ns, end_ns;
	uint64_t id;		/* range id, or a created domain's handle */
	uint64_t domain;	/* the handle passed; 0: the default domain */
	uint64_t stack_id;
	uint32_t tid;
	uint32_t msg;		/* in text */
	uint32_t domain_name;	/* in text: its domain's, as of the call */
	uint16_t kind;		/* enum msprof_mstx_kind */
	uint8_t flags;
	bool taken;		/* a range's start its end was paired with */
};

/* What one pass over the calls keeps. */
struct pairing {
	struct idmap names;	/* domain handle -> its name, in text */
	struct idmap open;	/* hash of (domain, range id) -> its start's call */
	struct keyhash_key key;
	uint32_t default_name, unknown_name;
	size_t cap;		/* of s->rows */
};

/* The default domain's name, as msprof calls it. */
static const char default_domain[] = "default";

int mstx_add(struct mstx_set **sp, const void *body, size_t len)
{
	const struct msprof_mstx_event *e = body;
	char msg[MSPROF_MSTX_MSG];
	uint32_t msg_id;
	struct mstx_set *s = *sp;
	struct mstx_call *c;
	size_t n = len - MSPROF_MSTX_HEAD;
	int err;

	if (e->mstx == MSTX_NONE || e->mstx >= MSTX_KINDS)
		return 0;	/* a newer writer's kind: not ours to show */
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		*sp = s;
	}
	c = growarr_push((void **)&s->calls, &s->ncalls, &s->cap_calls,
			 sizeof(*c));
	if (!c)
		return -ENOMEM;
	/* The record's length, not its own say, bounds the message. */
	if (n > e->msg_len)
		n = e->msg_len;
	memcpy(msg, e->msg, n);
	msg[n] = '\0';
	printable_as(msg, true);
	err = strtab_intern(&s->text, msg, strlen(msg), &msg_id);
	if (err)
		return err;
	*c = (struct mstx_call){
		.start_ns = e->start_ns, .end_ns = e->end_ns, .id = e->id,
		.domain = e->domain, .stack_id = e->stack_id, .tid = e->ns_tid,
		.msg = msg_id, .kind = e->mstx,
		.flags = (uint8_t)(e->flags & (MSTX_MSG_CUT | MSTX_MSG_BAD)),
	};
	s->cut += !!(e->flags & MSTX_MSG_CUT);
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct mstx_row *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static bool is_start(uint16_t k)
{
	return k == MSTX_RANGE_START || k == MSTX_DOMAIN_RANGE_START;
}

static bool is_end(uint16_t k)
{
	return k == MSTX_RANGE_END || k == MSTX_DOMAIN_RANGE_END;
}

/* A range's key: its domain and its id (the task's, unique while open). */
static uint64_t range_key(const struct pairing *pr, const struct mstx_call *c)
{
	uint64_t k[2] = { c->domain, c->id };

	return keyhash(&pr->key, k, sizeof(k));
}

/*
 * The name of the domain a call names, as the latest create before it
 * says: a handle freed and handed out again names the newer from then on.
 */
static uint32_t domain_name(const struct pairing *pr, uint64_t handle)
{
	uint32_t id;

	if (!handle)
		return pr->default_name;
	/* Created before the window: known by its handle alone. */
	return idmap_get(&pr->names, handle, &id) ? pr->unknown_name : id;
}

static int add_row(struct mstx_set *s, struct pairing *pr,
		   const struct mstx_call *c, const struct mstx_call *end)
{
	struct mstx_row *r = growarr_push((void **)&s->rows, &s->nrows, &pr->cap,
					  sizeof(*r));

	if (!r)
		return -ENOMEM;
	*r = (struct mstx_row){
		.start_ns = c->start_ns, .end_ns = end ? end->start_ns : c->start_ns,
		.range_id = end ? c->id : 0, .stack_id = c->stack_id,
		.tid = c->tid, .end_tid = end ? end->tid : c->tid, .msg = c->msg,
		.domain = c->domain_name,
		.type = end ? MSTX_TYPE_START_END : MSTX_TYPE_MARKER,
		.flags = c->flags,
	};
	if (end && end->tid != c->tid)
		r->flags |= MSTX_ROW_OTHER_THREAD;
	return 0;
}

/* An end: its open start's row, or one more unpaired. */
static int close_range(struct mstx_set *s, struct pairing *pr,
		       const struct mstx_call *end)
{
	struct mstx_call *start;
	uint32_t i;

	if (idmap_get(&pr->open, range_key(pr, end), &i) ||
	    (start = &s->calls[i])->taken || start->id != end->id ||
	    start->domain != end->domain) {
		s->unpaired++;
		return 0;
	}
	start->taken = true;
	return add_row(s, pr, start, end);
}

static int pair_call(struct mstx_set *s, struct pairing *pr, size_t i)
{
	struct mstx_call *c = &s->calls[i];

	c->domain_name = domain_name(pr, c->domain);
	if (c->kind == MSTX_DOMAIN_CREATE)
		return idmap_put(&pr->names, c->id, c->msg);
	if (c->kind == MSTX_MARK || c->kind == MSTX_DOMAIN_MARK)
		return add_row(s, pr, c, NULL);
	if (is_start(c->kind) && c->id)
		return idmap_put(&pr->open, range_key(pr, c), (uint32_t)i);
	if (is_end(c->kind))
		return close_range(s, pr, c);
	return 0;
}

/*
 * One pass in file order, which is each thread's call order; a range's
 * end comes after its start's return, so after its record.
 */
int mstx_finish(struct mstx_set *s)
{
	struct pairing pr = { 0 };
	size_t i;
	int err;

	if (!s)
		return 0;
	err = keyhash_key_new(&pr.key) ?:
	      strtab_intern(&s->text, default_domain, sizeof(default_domain) - 1,
			    &pr.default_name) ?:
	      strtab_intern(&s->text, "unknown", 7, &pr.unknown_name);
	for (i = 0; i < s->ncalls && !err; i++)
		err = pair_call(s, &pr, i);
	for (i = 0; i < s->ncalls && !err; i++)
		s->unpaired += is_start(s->calls[i].kind) && s->calls[i].id &&
			       !s->calls[i].taken;
	idmap_free(&pr.names);
	idmap_free(&pr.open);
	if (!err && s->nrows)
		qsort(s->rows, s->nrows, sizeof(*s->rows), by_start);
	return err;
}

void mstx_free(struct mstx_set *s)
{
	if (!s)
		return;
	free(s->calls);
	free(s->rows);
	strtab_free(&s->text);
	free(s);
}
