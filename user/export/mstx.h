/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_EXPORT_MSTX_H
#define MSPROF_EXPORT_MSTX_H

/*
 * A window's user marks (--msproftx=on), as msprof shows msproftx data:
 * each mark an instant, each range its start and its end joined by range
 * id (per domain), both on the threads the task knows them by.  Loaded
 * from the host file's MSPROF_REC_MSTX records; their messages are kept
 * once each, made printable (hostile bytes become '?').
 */
#include <stddef.h>
#include <stdint.h>

#include "strtab.h"

/* msprof's ENUM_MSTX_EVENT_TYPE values of what we record. */
enum { MSTX_TYPE_MARKER = 0, MSTX_TYPE_START_END = 2 };

/* A row's flags: the message's (MSTX_MSG_CUT, MSTX_MSG_BAD), and this. */
#define MSTX_ROW_OTHER_THREAD	4u	/* a range ended on another thread */

struct mstx_row {
	uint64_t start_ns;	/* CLOCK_MONOTONIC: the call (a range's start) */
	uint64_t end_ns;	/* a mark's start_ns; a range's end call */
	uint64_t range_id;	/* 0 for a mark */
	uint64_t stack_id;	/* the call's Python stack (pystacks_chain()), as its record says */
	uint32_t tid;		/* as the task sees itself */
	uint32_t end_tid;	/* where the range ended; tid for a mark */
	uint32_t msg;		/* in mstx_set.text */
	uint32_t domain;	/* in mstx_set.text: the domain's name */
	uint8_t type;		/* MSTX_TYPE_* */
	uint8_t flags;
};

/* A call as its record says it, until mstx_finish() pairs them. */
struct mstx_call;

struct mstx_set {
	struct mstx_call *calls;
	size_t ncalls, cap_calls;
	struct mstx_row *rows;	/* by start, after mstx_finish() */
	size_t nrows;
	struct strtab text;	/* messages and domain names */
	uint64_t unpaired;	/* range starts and ends whose other half is not in the window */
	uint64_t cut;		/* messages cut at the kept length */
};

/* Keeps one MSPROF_REC_MSTX record (len bytes, as recfile checked); *s made at the first. */
int mstx_add(struct mstx_set **s, const void *body, size_t len);
/* Pairs the ranges and orders the rows (s may be NULL: no marks). */
int mstx_finish(struct mstx_set *s);
void mstx_free(struct mstx_set *s);

static inline const char *mstx_text(const struct mstx_set *s, uint32_t id)
{
	return strtab_str(&s->text, id);
}

#endif
