// SPDX-License-Identifier: MIT
/* The window's user marks: records kept as read, then ranges paired. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/growarr.h"
#include "common/printable.h"
#include "msprof/mstx.h"
#include "mstx.h"

struct mstx_call {
	uint64_t start_ns, end_ns;
	uint64_t id;		/* range id, or a created domain's handle */
	uint64_t domain;	/* the handle passed; 0: the default domain */
	uint64_t stack_id;
	uint32_t tid;
	uint32_t msg;		/* in text */
	uint16_t kind;		/* enum msprof_mstx_kind */
	uint8_t flags;
};

/* The default domain's name, as msprof calls it. */
static const char default_domain[] = "default";

int mstx_add(struct mstx_set **sp, const void *body, size_t len)
{
	const struct msprof_mstx_event *e = body;
	char msg[MSPROF_MSTX_MSG];
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
	err = strtab_intern(&s->text, msg, strlen(msg), &c->msg);
	if (err)
		return err;
	c->start_ns = e->start_ns;
	c->end_ns = e->end_ns;
	c->id = e->id;
	c->domain = e->domain;
	c->stack_id = e->stack_id;
	c->tid = e->ns_tid;
	c->kind = e->mstx;
	c->flags = (uint8_t)(e->flags & (MSTX_MSG_CUT | MSTX_MSG_BAD));
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

/* The name of the domain a call names: the create that returned its handle. */
static int domain_name(struct mstx_set *s, uint64_t handle, uint32_t *id)
{
	size_t i;

	if (!handle)
		return strtab_intern(&s->text, default_domain,
				     sizeof(default_domain) - 1, id);
	/* Latest first: a handle freed and handed out again names the newer. */
	for (i = s->ncalls; i-- > 0;)
		if (s->calls[i].kind == MSTX_DOMAIN_CREATE && s->calls[i].id == handle) {
			*id = s->calls[i].msg;
			return 0;
		}
	/* Created before the window: known by its handle alone. */
	return strtab_intern(&s->text, "unknown", 7, id);
}

static bool is_start(uint16_t k)
{
	return k == MSTX_RANGE_START || k == MSTX_DOMAIN_RANGE_START;
}

static bool is_end(uint16_t k)
{
	return k == MSTX_RANGE_END || k == MSTX_DOMAIN_RANGE_END;
}

/*
 * The start's end: the first end after it with its domain and id (ids are
 * the task's library's, unique while a range is open).  NULL if none.
 */
static struct mstx_call *end_of(struct mstx_set *s, size_t from,
				const struct mstx_call *start)
{
	size_t i;

	for (i = from + 1; i < s->ncalls; i++) {
		struct mstx_call *c = &s->calls[i];

		if (is_end(c->kind) && c->id == start->id &&
		    c->domain == start->domain)
			return c;
	}
	return NULL;
}

static int add_row(struct mstx_set *s, const struct mstx_call *c,
		   const struct mstx_call *end, size_t *cap)
{
	struct mstx_row *r = growarr_push((void **)&s->rows, &s->nrows, cap,
					  sizeof(*r));

	if (!r)
		return -ENOMEM;
	*r = (struct mstx_row){
		.start_ns = c->start_ns, .end_ns = end ? end->start_ns : c->start_ns,
		.range_id = end ? c->id : 0, .stack_id = c->stack_id,
		.tid = c->tid, .end_tid = end ? end->tid : c->tid, .msg = c->msg,
		.type = end ? MSTX_TYPE_START_END : MSTX_TYPE_MARKER,
		.flags = c->flags,
	};
	if (end && end->tid != c->tid)
		r->flags |= MSTX_ROW_OTHER_THREAD;
	return domain_name(s, c->domain, &r->domain);
}

/*
 * Calls are in file order, which is each thread's call order; a range's
 * end comes after its start's return, so after its record.
 */
int mstx_finish(struct mstx_set *s)
{
	size_t i, cap = 0;
	struct mstx_call *end;
	int err = 0;

	if (!s)
		return 0;
	for (i = 0; i < s->ncalls && !err; i++) {
		struct mstx_call *c = &s->calls[i];

		if (c->kind == MSTX_MARK || c->kind == MSTX_DOMAIN_MARK) {
			err = add_row(s, c, NULL, &cap);
		} else if (is_start(c->kind) && c->id) {
			end = end_of(s, i, c);
			if (end) {
				err = add_row(s, c, end, &cap);
				end->kind = MSTX_NONE;	/* taken */
			} else {
				s->unpaired++;
			}
		} else if (is_end(c->kind)) {
			s->unpaired++;	/* no start before it: an end of a taken one is MSTX_NONE */
		}
	}
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
