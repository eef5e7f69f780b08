/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_EXPORT_TSTATE_H
#define MSPROF_EXPORT_TSTATE_H

/*
 * A window's thread states (--host-sys=sched): the host file's
 * MSPROF_REC_SCHED records, each thread's switches and wake-ups, made
 * into spans that tile its time from its first record (or the window's
 * start, where the first record says what it was doing then) to the
 * window's end or its exit.  Names (comm) are kept once each, made
 * printable.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strtab.h"

enum tstate {
	TS_RUNNING,
	TS_RUNNABLE,		/* preempted, or woken and waiting for a CPU */
	TS_SLEEPING,		/* interruptible */
	TS_UNINTERRUPTIBLE,	/* D */
	TS_STOPPED,		/* stopped or traced */
	TS_UNKNOWN,		/* between two records that do not agree (one was lost) */
	TS_NSTATES,
};

/* A span's flags. */
#define TSPAN_WOKEN	1u	/* ends at a wake-up (off-CPU), or follows one (Runnable) */
#define TSPAN_PREEMPTED	2u	/* Runnable: taken off its CPU while runnable */
#define TSPAN_NEW	4u	/* Runnable: a new thread's first wait */
#define TSPAN_IRQ	8u	/* woken from an interrupt: no thread woke it */
#define TSPAN_BEFORE	16u	/* began before the window: its start is the window's */
#define TSPAN_UNSEEN_IN	32u	/* Running: its start, a switch-in the kernel did not report, from its CPU time */

/* What woke a thread, as its wake-up record says. */
struct tstate_waker {
	uint32_t tid;		/* as the woken task sees it when in its namespace, else msprof's view */
	uint32_t pid;		/* its process, as msprof sees it */
	uint32_t name;		/* in tstate_set.names: its comm */
	bool same_task;		/* a thread of the woken one's own process */
};

struct tstate_span {
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC */
	uint32_t thread;	/* in tstate_set.threads */
	int32_t syscall;	/* off-CPU: what it is in (MSPROF_SCHED_NO_SYSCALL, _UNKNOWN) */
	struct tstate_waker waker;	/* TSPAN_WOKEN and not TSPAN_IRQ */
	uint16_t cpu;		/* Running: where */
	uint8_t state;		/* enum tstate */
	uint8_t flags;		/* TSPAN_* */
};

/* A stretch off the CPU: from leaving it (or the window's start) to the next run. */
struct tstate_off {
	uint64_t start_ns, end_ns;
	uint64_t runnable_ns;	/* of it, waiting for a CPU */
	uint32_t span;		/* its first span: what it left the CPU for */
	uint32_t wake;		/* the span that ended at its wake-up; UINT32_MAX: none */
	bool to_end;		/* still off the CPU as the window ended */
};

/* A thread's longest stretches off the CPU kept, longest first. */
#define TSTATE_LONGEST	10

struct tstate_thread {
	uint32_t tid;		/* as msprof sees it */
	uint32_t ns_tid;	/* as its task sees it (its API calls' threads) */
	uint32_t name;		/* in tstate_set.names: its latest comm */
	uint64_t ns[TS_NSTATES];	/* time in each state */
	uint64_t switches;	/* times it left a CPU */
	uint64_t wakeups;	/* times it was woken (or made, for a new thread) */
	struct tstate_off longest[TSTATE_LONGEST];
	uint32_t nlongest;
	bool exited;		/* ended in the window */
};

/* A record as read, until tstate_finish() walks them. */
struct tstate_rec;

struct tstate_set {
	struct tstate_rec *recs;
	size_t nrecs, cap_recs;
	uint64_t begin_ns, end_ns;	/* msprof's marks: records from/to; 0: none */
	uint32_t pid;		/* the task, as msprof sees it */
	/* Each thread's together, by start, after tstate_finish(). */
	struct tstate_span *spans;
	size_t nspans, cap_spans;
	struct tstate_thread *threads;	/* by ns_tid */
	size_t nthreads, cap_threads;
	struct strtab names;
	uint64_t disagreed;	/* records that did not follow their thread's last (a loss) */
	uint64_t unseen_ins;	/* switch-ins the kernel did not report, placed by CPU time */
};

/* Keeps one MSPROF_REC_SCHED record (len as recfile checked); *s made at the first. */
int tstate_add(struct tstate_set **s, const void *body, size_t len);
/*
 * Makes the spans, each thread's state from its first record to end_ns
 * (the window's end: its END mark when there is one, else this); s may be
 * NULL (no records).
 */
int tstate_finish(struct tstate_set *s, uint64_t end_ns);
void tstate_free(struct tstate_set *s);

/* "Running", "Runnable", ...: a span's name. */
const char *tstate_name(enum tstate st);
/* The span's syscall's name, a number for one not known here, or NULL for none. */
const char *tstate_syscall(const struct tstate_span *sp, char *buf, size_t len);
/*
 * Who woke the span's thread: "Thread 12 (holder)", "make (pid 9, tid 9)",
 * "interrupt"; NULL if it was not woken.
 */
const char *tstate_waker_text(const struct tstate_set *s,
			      const struct tstate_span *sp, char *buf, size_t len);

static inline const char *tstate_str(const struct tstate_set *s, uint32_t id)
{
	return strtab_str(&s->names, id);
}

#endif
