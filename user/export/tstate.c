// SPDX-License-Identifier: MIT
/*
 * The window's thread states: records kept as read, then each thread's
 * walked in time order into spans (a state machine per thread).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/growarr.h"
#include "common/printable.h"
#include "host/syscall_names.h"
#include "msprof/sched.h"
#include "tstate.h"

struct tstate_rec {
	uint64_t ts;
	uint64_t run_ns;	/* the thread's CPU time so far */
	uint32_t tid, ns_tid;
	uint32_t waker_tid, waker_tgid, waker_ns_tid;
	uint32_t state;
	int32_t syscall;
	uint32_t name;		/* comm, in names */
	uint32_t seq;		/* its place in the file: ties keep that order */
	uint16_t what, flags, cpu;
};

/* Where a thread's walk stands between its records. */
enum { W_NONE = TS_NSTATES, W_GONE };

struct walk {
	struct tstate_set *s;
	uint32_t thread;	/* in s->threads */
	int cur;		/* enum tstate, W_NONE (no record yet), W_GONE (exited) */
	uint64_t since;
	int32_t syscall;
	uint8_t flags;
	uint16_t cpu;
	uint64_t run_ns;	/* the thread's CPU time at its last record */
	bool run_known;		/* there was one */
	struct tstate_waker waker;
	bool off;		/* a stretch off the CPU is open */
	struct tstate_off stretch;
};

#define NONE UINT32_MAX

static const char *const names[TS_NSTATES] = {
	[TS_RUNNING] = "Running", [TS_RUNNABLE] = "Runnable",
	[TS_SLEEPING] = "Sleeping", [TS_UNINTERRUPTIBLE] = "Uninterruptible",
	[TS_STOPPED] = "Stopped", [TS_UNKNOWN] = "Unknown",
};

const char *tstate_name(enum tstate st)
{
	return st < TS_NSTATES ? names[st] : "Unknown";
}

int tstate_add(struct tstate_set **sp, const void *body, size_t len)
{
	const struct msprof_sched_event *e = body;
	char comm[sizeof(e->comm) + 1];
	struct tstate_set *s = *sp;
	struct tstate_rec *r;

	(void)len;	/* recfile passes this record's one size only */
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		*sp = s;
	}
	if (e->what == MSPROF_SCHED_BEGIN) {
		if (!s->begin_ns || e->ts_ns < s->begin_ns)
			s->begin_ns = e->ts_ns;
		return 0;
	}
	if (e->what == MSPROF_SCHED_END) {
		if (e->ts_ns > s->end_ns)
			s->end_ns = e->ts_ns;
		return 0;
	}
	if (e->what < MSPROF_SCHED_OUT || e->what > MSPROF_SCHED_WAKE_NEW)
		return 0;	/* a newer writer's: not ours to read */
	r = growarr_push((void **)&s->recs, &s->nrecs, &s->cap_recs, sizeof(*r));
	if (!r)
		return -ENOMEM;
	memcpy(comm, e->comm, sizeof(e->comm));
	comm[sizeof(e->comm)] = '\0';
	printable_as(comm, true);
	*r = (struct tstate_rec){
		.ts = e->ts_ns, .run_ns = e->run_ns, .tid = e->tid, .ns_tid = e->ns_tid,
		.waker_tid = e->waker_tid, .waker_tgid = e->waker_tgid,
		.waker_ns_tid = e->waker_ns_tid, .state = e->state,
		.syscall = e->syscall, .seq = (uint32_t)(s->nrecs - 1),
		.what = e->what, .flags = e->flags, .cpu = (uint16_t)e->cpu,
	};
	s->pid = e->tgid;
	return strtab_intern(&s->names, comm, strlen(comm), &r->name);
}

static int by_tid_time(const void *a, const void *b)
{
	const struct tstate_rec *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* What a thread that left its CPU (or was woken from) was in, by its state bits. */
static int classify(uint32_t st)
{
	if (!st)
		return TS_RUNNABLE;
	if (st & (MSPROF_TASK_STOPPED | MSPROF_TASK_TRACED))
		return TS_STOPPED;
	/* TASK_IDLE is uninterruptible but waits on nothing: a sleep. */
	if ((st & MSPROF_TASK_UNINTERRUPTIBLE) && !(st & MSPROF_TASK_NOLOAD))
		return TS_UNINTERRUPTIBLE;
	return TS_SLEEPING;
}

static bool dead(uint32_t st)
{
	return st & (MSPROF_TASK_DEAD | MSPROF_TASK_EXIT_DEAD | MSPROF_TASK_EXIT_ZOMBIE);
}

/* A thread's longest stretches, longest first: o in its place, if it is one. */
static void keep_longest(struct tstate_thread *th, const struct tstate_off *o)
{
	uint64_t len = o->end_ns - o->start_ns;
	uint32_t i = th->nlongest;

	if (i == TSTATE_LONGEST) {
		const struct tstate_off *last = &th->longest[i - 1];

		if (len <= last->end_ns - last->start_ns)
			return;
		i--;
	} else {
		th->nlongest++;
	}
	for (; i > 0 && th->longest[i - 1].end_ns - th->longest[i - 1].start_ns < len; i--)
		th->longest[i] = th->longest[i - 1];
	th->longest[i] = *o;
}

static void open_off(struct walk *w, uint64_t at)
{
	w->off = true;
	w->stretch = (struct tstate_off){ .start_ns = at, .span = NONE, .wake = NONE };
}

static void close_off(struct walk *w, uint64_t at, bool to_end)
{
	if (!w->off)
		return;
	w->off = false;
	w->stretch.end_ns = at;
	w->stretch.to_end = to_end;
	if (w->stretch.span != NONE && at > w->stretch.start_ns)
		keep_longest(&w->s->threads[w->thread], &w->stretch);
}

/* The span the walk's state makes from since to end; its index, or NONE. */
static int emit(struct walk *w, int st, uint64_t end, uint32_t *at)
{
	struct tstate_set *s = w->s;
	struct tstate_span *sp;

	*at = NONE;
	if (end <= w->since)
		return 0;
	sp = growarr_push((void **)&s->spans, &s->nspans, &s->cap_spans, sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	*sp = (struct tstate_span){
		.start_ns = w->since, .end_ns = end, .thread = w->thread,
		.syscall = st == TS_RUNNING ? MSPROF_SCHED_NO_SYSCALL : w->syscall,
		.waker = w->waker, .cpu = w->cpu, .state = (uint8_t)st,
		.flags = w->flags,
	};
	*at = (uint32_t)(s->nspans - 1);
	s->threads[w->thread].ns[st] += end - w->since;
	if (w->off && st != TS_RUNNING) {
		if (w->stretch.span == NONE)
			w->stretch.span = *at;
		if (st == TS_RUNNABLE)
			w->stretch.runnable_ns += end - w->since;
	}
	return 0;
}

/* Sets the walk's state from now on. */
static void enter(struct walk *w, int st, uint64_t at, int32_t syscall,
		  uint8_t flags)
{
	w->cur = st;
	w->since = at;
	w->syscall = syscall;
	w->flags = flags;
	if (!(flags & TSPAN_WOKEN))
		w->waker = (struct tstate_waker){ 0 };
}

/*
 * A record whose thread's state cannot be what the last one left: the
 * time between is Unknown (a record the ring buffer had no room for).
 */
static int disagree(struct walk *w, uint64_t at)
{
	uint32_t i;

	w->s->disagreed++;
	w->flags = 0;
	return emit(w, TS_UNKNOWN, at, &i);
}

/*
 * Whether a thread that was waiting for a CPU and now leaves one ran for
 * a time its CPU time tells: the kernel did not report its switch-in
 * (6.18 skips one now and then; perf's view of the tracepoint has the
 * same gap).
 */
static bool ran_unseen(const struct walk *w, const struct tstate_rec *r)
{
	return w->run_known && r->run_ns > w->run_ns &&
	       r->run_ns - w->run_ns < r->ts - w->since;
}

/* It waited, then ran up to r for as long as its CPU time grew. */
static int run_unseen(struct walk *w, const struct tstate_rec *r)
{
	uint64_t in_at = r->ts - (r->run_ns - w->run_ns);
	uint32_t i;
	int err;

	w->s->unseen_ins++;
	err = emit(w, TS_RUNNABLE, in_at, &i);
	close_off(w, in_at, false);
	enter(w, TS_RUNNING, in_at, MSPROF_SCHED_NO_SYSCALL, TSPAN_UNSEEN_IN);
	w->cpu = r->cpu;
	return err ?: emit(w, TS_RUNNING, r->ts, &i);
}

static int on_out(struct walk *w, const struct tstate_rec *r)
{
	uint32_t i;
	int st, err = 0;

	w->s->threads[w->thread].switches++;
	if (w->cur == W_NONE && w->s->begin_ns) {
		/* Every switch-in since the window began is recorded: it ran since. */
		enter(w, TS_RUNNING, w->s->begin_ns, MSPROF_SCHED_NO_SYSCALL,
		      TSPAN_BEFORE);
		w->cpu = r->cpu;
		err = emit(w, TS_RUNNING, r->ts, &i);
	} else if (w->cur == TS_RUNNING) {
		err = emit(w, TS_RUNNING, r->ts, &i);
	} else if (w->cur == TS_RUNNABLE && ran_unseen(w, r)) {
		err = run_unseen(w, r);
	} else if (w->cur < TS_NSTATES) {
		w->off = false;		/* its end is not known */
		err = disagree(w, r->ts);
	}
	if (dead(r->state)) {
		w->s->threads[w->thread].exited = true;
		w->cur = W_GONE;
		return err;
	}
	/*
	 * Preempted is runnable whatever its state says: one taken off its
	 * CPU as it got ready to sleep is still on the run queue.
	 */
	st = r->flags & MSPROF_SCHED_PREEMPTED ? TS_RUNNABLE : classify(r->state);
	enter(w, st, r->ts, r->syscall, st == TS_RUNNABLE ? TSPAN_PREEMPTED : 0);
	open_off(w, r->ts);
	return err;
}

static int on_in(struct walk *w, const struct tstate_rec *r)
{
	uint32_t i;
	int err = 0;

	if (w->cur == W_NONE && w->s->begin_ns) {
		/* Not running as the window began, nor woken since: runnable. */
		open_off(w, w->s->begin_ns);
		enter(w, TS_RUNNABLE, w->s->begin_ns, MSPROF_SCHED_NO_SYSCALL,
		      TSPAN_BEFORE);
		err = emit(w, TS_RUNNABLE, r->ts, &i);
	} else if (w->cur == TS_RUNNING) {
		err = disagree(w, r->ts);
	} else if (w->cur < TS_NSTATES) {
		/* Off the CPU and not woken: that wake-up's record was lost. */
		if (w->cur != TS_RUNNABLE)
			w->s->disagreed++;
		err = emit(w, w->cur, r->ts, &i);
	}
	close_off(w, r->ts, false);
	enter(w, TS_RUNNING, r->ts, MSPROF_SCHED_NO_SYSCALL, 0);
	w->cpu = r->cpu;
	return err;
}

static void take_waker(struct walk *w, const struct tstate_rec *r)
{
	w->waker = (struct tstate_waker){
		.tid = r->waker_ns_tid ? r->waker_ns_tid : r->waker_tid,
		.pid = r->waker_tgid, .name = r->name,
		.same_task = r->waker_tgid == w->s->pid,
	};
}

static int on_wake(struct walk *w, const struct tstate_rec *r)
{
	uint8_t woken = TSPAN_WOKEN | (r->flags & MSPROF_SCHED_IRQ ? TSPAN_IRQ : 0);
	int err;

	w->s->threads[w->thread].wakeups++;
	if (w->cur == W_NONE && w->s->begin_ns) {
		/* Asleep as the window began: the wake-up says in what. */
		open_off(w, w->s->begin_ns);
		enter(w, r->state ? classify(r->state) : TS_UNKNOWN, w->s->begin_ns,
		      r->syscall, TSPAN_BEFORE);
	}
	if (w->cur != TS_SLEEPING && w->cur != TS_UNINTERRUPTIBLE &&
	    w->cur != TS_STOPPED && w->cur != TS_UNKNOWN)
		return 0;	/* woken before it went to sleep: it goes on */
	take_waker(w, r);
	w->flags |= woken;
	err = emit(w, w->cur, r->ts, &w->stretch.wake);
	enter(w, TS_RUNNABLE, r->ts, MSPROF_SCHED_NO_SYSCALL, woken);
	return err;
}

/* A new thread: its time begins here, waiting for its first CPU. */
static void on_new(struct walk *w, const struct tstate_rec *r)
{
	w->s->threads[w->thread].wakeups++;
	w->s->threads[w->thread].exited = false;
	w->off = false;
	take_waker(w, r);
	enter(w, TS_RUNNABLE, r->ts, MSPROF_SCHED_NO_SYSCALL,
	      TSPAN_NEW | TSPAN_WOKEN);
}

static int step(struct walk *w, const struct tstate_rec *r)
{
	struct tstate_thread *th = &w->s->threads[w->thread];

	int err = 0;

	if (!th->ns_tid)
		th->ns_tid = r->ns_tid;
	switch (r->what) {
	case MSPROF_SCHED_OUT:
		th->name = r->name;
		err = on_out(w, r);
		break;
	case MSPROF_SCHED_IN:
		th->name = r->name;
		err = on_in(w, r);
		break;
	case MSPROF_SCHED_WAKE:
		err = on_wake(w, r);
		break;
	case MSPROF_SCHED_WAKE_NEW:
		on_new(w, r);
		break;
	}
	w->run_ns = r->run_ns;
	w->run_known = true;
	return err;
}

static int new_thread(struct tstate_set *s, const struct tstate_rec *r)
{
	struct tstate_thread *th = growarr_push((void **)&s->threads, &s->nthreads,
						&s->cap_threads, sizeof(*th));

	if (!th)
		return -ENOMEM;
	*th = (struct tstate_thread){ .tid = r->tid, .name = r->name };
	return 0;
}

/* The records of one thread, from *i on; *i past them on return. */
static int walk_thread(struct tstate_set *s, size_t *i, uint64_t end)
{
	struct walk w = { .s = s, .cur = W_NONE };
	uint32_t tid = s->recs[*i].tid, at;
	int err = new_thread(s, &s->recs[*i]);
	size_t taken = 0;

	w.thread = (uint32_t)(s->nthreads - 1);
	for (; !err && *i < s->nrecs && s->recs[*i].tid == tid; ++*i) {
		if (s->recs[*i].ts > end)
			continue;
		taken++;
		err = step(&w, &s->recs[*i]);
	}
	for (; *i < s->nrecs && s->recs[*i].tid == tid; ++*i)
		;
	if (err)
		return err;
	if (!taken) {
		s->nthreads--;	/* seen only after the window's end */
		return 0;
	}
	if (w.cur < TS_NSTATES)
		err = emit(&w, w.cur, end, &at);
	close_off(&w, end, true);
	return err;
}

static int by_ns_tid(const void *a, const void *b, void *arg)
{
	const struct tstate_thread *t = arg;
	const struct tstate_thread *x = &t[*(const uint32_t *)a];
	const struct tstate_thread *y = &t[*(const uint32_t *)b];

	if (x->ns_tid != y->ns_tid)
		return x->ns_tid < y->ns_tid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Threads in their task's order (ns_tid), the spans naming them anew. */
static int order_threads(struct tstate_set *s)
{
	uint32_t *order = malloc(s->nthreads * sizeof(*order));
	uint32_t *place = malloc(s->nthreads * sizeof(*place));
	struct tstate_thread *sorted = malloc(s->nthreads * sizeof(*sorted));
	size_t i;

	if (!order || !place || !sorted) {
		free(order);
		free(place);
		free(sorted);
		return -ENOMEM;
	}
	for (i = 0; i < s->nthreads; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, s->nthreads, sizeof(*order), by_ns_tid, s->threads);
	for (i = 0; i < s->nthreads; i++) {
		sorted[i] = s->threads[order[i]];
		place[order[i]] = (uint32_t)i;
	}
	for (i = 0; i < s->nspans; i++)
		s->spans[i].thread = place[s->spans[i].thread];
	free(s->threads);
	s->threads = sorted;
	free(order);
	free(place);
	return 0;
}

int tstate_finish(struct tstate_set *s, uint64_t end_ns)
{
	size_t i = 0;
	int err = 0;

	if (!s)
		return 0;
	if (s->end_ns)
		end_ns = s->end_ns;
	if (s->nrecs)
		qsort(s->recs, s->nrecs, sizeof(*s->recs), by_tid_time);
	while (!err && i < s->nrecs)
		err = walk_thread(s, &i, end_ns);
	free(s->recs);
	s->recs = NULL;
	s->nrecs = s->cap_recs = 0;
	return err ?: order_threads(s);
}

void tstate_free(struct tstate_set *s)
{
	if (!s)
		return;
	free(s->recs);
	free(s->spans);
	free(s->threads);
	strtab_free(&s->names);
	free(s);
}

/*
 * syscall_name() walks a list, and the writers ask a name a span: the low
 * numbers (every syscall's but a few new ones) are looked up once, for
 * all the export's threads.
 */
#define NAMED 1024
static const char *named[NAMED];
static pthread_once_t named_once = PTHREAD_ONCE_INIT;

static void name_all(void)
{
	unsigned long nr;

	for (nr = 0; nr < NAMED; nr++)
		named[nr] = syscall_name(nr);
}

const char *tstate_syscall(const struct tstate_span *sp, char *buf, size_t len)
{
	const char *name;

	if (sp->syscall == MSPROF_SCHED_NO_SYSCALL)
		return NULL;
	if (sp->syscall < 0)
		return "unknown";
	pthread_once(&named_once, name_all);
	name = sp->syscall < NAMED ? named[sp->syscall] :
	       syscall_name((unsigned long)sp->syscall);
	if (name)
		return name;
	snprintf(buf, len, "syscall %d", (int)sp->syscall);
	return buf;
}

const char *tstate_waker_text(const struct tstate_set *s,
			      const struct tstate_span *sp, char *buf, size_t len)
{
	const struct tstate_waker *k = &sp->waker;

	if (!(sp->flags & TSPAN_WOKEN))
		return NULL;
	if (sp->flags & TSPAN_IRQ)
		return "interrupt";
	if (k->same_task)
		snprintf(buf, len, "Thread %u (%s)", k->tid, tstate_str(s, k->name));
	else
		snprintf(buf, len, "%s (pid %u, tid %u)", tstate_str(s, k->name),
			 k->pid, k->tid);
	return buf;
}
