// SPDX-License-Identifier: MIT
/*
 * Thread states (--host-sys=sched): the export's state machine that makes
 * a thread's switch and wake-up records into spans (user/export/tstate.c)
 * at the window's start and end, across a lost record, an exit and a new
 * thread; the host file's record as the collector writes it; syscall names.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "export/tstate.h"
#include "host/syscall_names.h"
#include "host/collector.h"
#include "msprof/recfile.h"
#include "msprof/sched.h"
#include "unit.h"

#define PID 100
#define BEGIN 1000
#define END 9000

static struct msprof_sched_event ev(uint16_t what, uint32_t tid, uint64_t ts,
				    uint32_t state, int32_t syscall)
{
	struct msprof_sched_event e = {
		.kind = MSPROF_EV_SCHED, .what = what, .tgid = PID, .tid = tid,
		.ts_ns = ts, .ns_tid = tid + 1, .state = state,
		.syscall = syscall, .cpu = 1,
	};

	snprintf(e.comm, sizeof(e.comm), "t%u", tid);
	return e;
}

static struct msprof_sched_event woke(uint32_t tid, uint64_t ts, uint32_t state,
				      uint32_t waker, uint32_t waker_pid)
{
	struct msprof_sched_event e = ev(MSPROF_SCHED_WAKE, tid, ts, state, SYS_futex);

	e.waker_tid = waker;
	e.waker_tgid = waker_pid;
	e.waker_ns_tid = waker_pid == PID ? waker + 1 : 0;
	snprintf(e.comm, sizeof(e.comm), "w%u", waker);
	return e;
}

static void add(struct tstate_set **s, struct msprof_sched_event e)
{
	CU_ASSERT_EQUAL(tstate_add(s, &e, sizeof(e)), 0);
}

static void marks(struct tstate_set **s)
{
	add(s, ev(MSPROF_SCHED_BEGIN, 0, BEGIN, 0, 0));
	add(s, ev(MSPROF_SCHED_END, 0, END, 0, 0));
}

static const struct tstate_span *span(const struct tstate_set *s, size_t i,
				      int state, uint64_t start, uint64_t end)
{
	const struct tstate_span *sp;

	CU_ASSERT_FATAL(i < s->nspans);
	sp = &s->spans[i];
	CU_ASSERT_EQUAL(sp->state, state);
	CU_ASSERT_EQUAL(sp->start_ns, start);
	CU_ASSERT_EQUAL(sp->end_ns, end);
	return sp;
}

/*
 * First a switch out: it ran since the window began.  Asleep in futex,
 * woken by a thread of its own task, waiting, running to the end.
 */
static void test_sleep_cycle(void)
{
	struct tstate_set *s = NULL;
	const struct tstate_thread *th;
	const struct tstate_span *sp;
	char buf[96];

	marks(&s);
	add(&s, ev(MSPROF_SCHED_OUT, 7, 2000, MSPROF_TASK_INTERRUPTIBLE, SYS_futex));
	add(&s, woke(7, 5000, MSPROF_TASK_INTERRUPTIBLE, 8, PID));
	add(&s, ev(MSPROF_SCHED_IN, 7, 5300, 0, -1));
	CU_ASSERT_EQUAL_FATAL(tstate_finish(s, 0), 0);
	CU_ASSERT_EQUAL_FATAL(s->nspans, 4);
	sp = span(s, 0, TS_RUNNING, BEGIN, 2000);
	CU_ASSERT(sp->flags & TSPAN_BEFORE);
	sp = span(s, 1, TS_SLEEPING, 2000, 5000);
	CU_ASSERT_STRING_EQUAL(tstate_syscall(sp, buf, sizeof(buf)), "futex");
	CU_ASSERT_STRING_EQUAL(tstate_waker_text(s, sp, buf, sizeof(buf)),
			       "Thread 9 (w8)");
	sp = span(s, 2, TS_RUNNABLE, 5000, 5300);
	CU_ASSERT(sp->flags & TSPAN_WOKEN);
	CU_ASSERT_PTR_NULL(tstate_syscall(sp, buf, sizeof(buf)));
	span(s, 3, TS_RUNNING, 5300, END);
	CU_ASSERT_EQUAL_FATAL(s->nthreads, 1);
	th = &s->threads[0];
	CU_ASSERT_EQUAL(th->ns_tid, 8);
	CU_ASSERT_STRING_EQUAL(tstate_str(s, th->name), "t7");
	CU_ASSERT_EQUAL(th->ns[TS_RUNNING], 1000 + 3700);
	CU_ASSERT_EQUAL(th->ns[TS_SLEEPING], 3000);
	CU_ASSERT_EQUAL(th->ns[TS_RUNNABLE], 300);
	CU_ASSERT_EQUAL(th->switches, 1);
	CU_ASSERT_EQUAL(th->wakeups, 1);
	/* One stretch off the CPU: asleep, then waiting for it. */
	CU_ASSERT_EQUAL_FATAL(th->nlongest, 1);
	CU_ASSERT_EQUAL(th->longest[0].start_ns, 2000);
	CU_ASSERT_EQUAL(th->longest[0].end_ns, 5300);
	CU_ASSERT_EQUAL(th->longest[0].runnable_ns, 300);
	CU_ASSERT_EQUAL(th->longest[0].span, 1);
	CU_ASSERT_EQUAL(th->longest[0].wake, 1);
	CU_ASSERT_FALSE(th->longest[0].to_end);
	CU_ASSERT_EQUAL(s->disagreed, 0);
	tstate_free(s);
}

/*
 * A first switch in: runnable since the window began.  A first wake-up:
 * asleep since then, in what it says (D here).  Preempted: runnable.
 */
static void test_first_records(void)
{
	struct tstate_set *s = NULL;
	const struct tstate_span *sp;
	char buf[96];

	marks(&s);
	add(&s, ev(MSPROF_SCHED_IN, 1, 1500, 0, -1));
	add(&s, ev(MSPROF_SCHED_OUT, 1, 1700, 0, SYS_write));
	add(&s, woke(2, 3000, MSPROF_TASK_UNINTERRUPTIBLE, 55, 55));
	CU_ASSERT_EQUAL_FATAL(tstate_finish(s, 0), 0);
	CU_ASSERT_EQUAL_FATAL(s->nthreads, 2);
	CU_ASSERT_EQUAL_FATAL(s->nspans, 5);
	sp = span(s, 0, TS_RUNNABLE, BEGIN, 1500);
	CU_ASSERT(sp->flags & TSPAN_BEFORE);
	span(s, 1, TS_RUNNING, 1500, 1700);
	sp = span(s, 2, TS_RUNNABLE, 1700, END);
	CU_ASSERT(sp->flags & TSPAN_PREEMPTED);
	CU_ASSERT_STRING_EQUAL(tstate_syscall(sp, buf, sizeof(buf)), "write");
	/* Still off the CPU as the window ended. */
	CU_ASSERT(s->threads[0].longest[0].to_end);
	sp = span(s, 3, TS_UNINTERRUPTIBLE, BEGIN, 3000);
	CU_ASSERT(sp->flags & TSPAN_BEFORE);
	CU_ASSERT_STRING_EQUAL(tstate_syscall(sp, buf, sizeof(buf)), "futex");
	CU_ASSERT_STRING_EQUAL(tstate_waker_text(s, sp, buf, sizeof(buf)),
			       "w55 (pid 55, tid 55)");
	span(s, 4, TS_RUNNABLE, 3000, END);
	tstate_free(s);
}

/* A switch in lost: Unknown between, counted; a wake-up before the sleep changes nothing. */
static void test_lost_and_races(void)
{
	struct tstate_set *s = NULL;
	struct msprof_sched_event irq = woke(3, 2500, MSPROF_TASK_INTERRUPTIBLE, 0, 0);
	char buf[96];

	irq.flags = MSPROF_SCHED_IRQ;
	marks(&s);
	add(&s, ev(MSPROF_SCHED_IN, 3, 1200, 0, -1));
	add(&s, woke(3, 1300, MSPROF_TASK_INTERRUPTIBLE, 4, PID));	/* still on its CPU */
	add(&s, ev(MSPROF_SCHED_OUT, 3, 1400, MSPROF_TASK_INTERRUPTIBLE, SYS_nanosleep));
	add(&s, irq);
	/* its switch in lost: it leaves a CPU it was not seen to get */
	add(&s, ev(MSPROF_SCHED_OUT, 3, 4000, MSPROF_TASK_INTERRUPTIBLE, SYS_read));
	CU_ASSERT_EQUAL_FATAL(tstate_finish(s, 0), 0);
	CU_ASSERT_EQUAL_FATAL(s->nspans, 5);
	span(s, 0, TS_RUNNABLE, BEGIN, 1200);
	span(s, 1, TS_RUNNING, 1200, 1400);
	CU_ASSERT_STRING_EQUAL(tstate_waker_text(s, span(s, 2, TS_SLEEPING, 1400, 2500),
						 buf, sizeof(buf)), "interrupt");
	span(s, 3, TS_UNKNOWN, 2500, 4000);
	span(s, 4, TS_SLEEPING, 4000, END);
	CU_ASSERT_EQUAL(s->disagreed, 1);
	tstate_free(s);
}

/*
 * Preempted as it got ready to sleep: its state says asleep, but it is
 * still runnable, and the wake-up that comes then changes nothing.
 */
static void test_preempted_sleeper(void)
{
	struct tstate_set *s = NULL;
	struct msprof_sched_event out = ev(MSPROF_SCHED_OUT, 6, 2000,
					   MSPROF_TASK_INTERRUPTIBLE, SYS_futex);

	out.flags = MSPROF_SCHED_PREEMPTED;
	marks(&s);
	add(&s, out);
	add(&s, woke(6, 2100, MSPROF_TASK_INTERRUPTIBLE, 8, PID));
	add(&s, ev(MSPROF_SCHED_IN, 6, 2500, 0, -1));
	CU_ASSERT_EQUAL_FATAL(tstate_finish(s, 0), 0);
	CU_ASSERT_EQUAL_FATAL(s->nspans, 3);
	CU_ASSERT(span(s, 1, TS_RUNNABLE, 2000, 2500)->flags & TSPAN_PREEMPTED);
	CU_ASSERT_EQUAL(s->threads[0].ns[TS_SLEEPING], 0);
	tstate_free(s);
}

/*
 * A switch-in the kernel did not report: the thread waits, then leaves a
 * CPU again, and its CPU time says for how long it ran before.
 */
static void test_unseen_switch_in(void)
{
	struct tstate_set *s = NULL;
	struct msprof_sched_event e;

	marks(&s);
	e = ev(MSPROF_SCHED_IN, 2, 1200, 0, -1);
	e.run_ns = 5000;
	add(&s, e);
	e = ev(MSPROF_SCHED_OUT, 2, 1500, 0, -1);
	e.run_ns = 5300;
	add(&s, e);
	e = ev(MSPROF_SCHED_OUT, 2, 2500, 0, -1);	/* ran 400 of the 1000 since */
	e.run_ns = 5700;
	add(&s, e);
	CU_ASSERT_EQUAL_FATAL(tstate_finish(s, 0), 0);
	CU_ASSERT_EQUAL_FATAL(s->nspans, 5);
	span(s, 2, TS_RUNNABLE, 1500, 2100);
	CU_ASSERT(span(s, 3, TS_RUNNING, 2100, 2500)->flags & TSPAN_UNSEEN_IN);
	span(s, 4, TS_RUNNABLE, 2500, END);
	CU_ASSERT_EQUAL(s->unseen_ins, 1);
	CU_ASSERT_EQUAL(s->disagreed, 0);
	CU_ASSERT_EQUAL(s->threads[0].ns[TS_RUNNING], 300 + 400);
	tstate_free(s);
}

/* Out of file order (CPUs' records interleave): sorted by time first. */
static void test_order_exit_new(void)
{
	struct tstate_set *s = NULL;
	struct msprof_sched_event made = woke(5, 1100, 0, 7, PID);

	made.what = MSPROF_SCHED_WAKE_NEW;
	marks(&s);
	add(&s, ev(MSPROF_SCHED_OUT, 5, 3000, MSPROF_TASK_DEAD, -1));
	add(&s, ev(MSPROF_SCHED_IN, 5, 1200, 0, -1));
	add(&s, made);
	/* after the window's end: not its */
	add(&s, ev(MSPROF_SCHED_IN, 9, END + 5, 0, -1));
	CU_ASSERT_EQUAL_FATAL(tstate_finish(s, 0), 0);
	CU_ASSERT_EQUAL_FATAL(s->nspans, 2);
	CU_ASSERT(span(s, 0, TS_RUNNABLE, 1100, 1200)->flags & TSPAN_NEW);
	span(s, 1, TS_RUNNING, 1200, 3000);
	CU_ASSERT(s->threads[0].exited);
	CU_ASSERT_EQUAL(s->threads[0].ns[TS_RUNNING], 1800);
	tstate_free(s);
}

/*
 * Without msprof's marks (a window cut short) a first record says nothing
 * of before it, and the end is the one given.  A thread's ten longest
 * stretches, longest first.
 */
static void test_no_marks_longest(void)
{
	struct tstate_set *s = NULL;
	uint64_t t = 100, i;

	for (i = 1; i <= 12; i++) {
		add(&s, ev(MSPROF_SCHED_OUT, 4, t, MSPROF_TASK_INTERRUPTIBLE, SYS_read));
		t += i * 10;
		add(&s, woke(4, t, MSPROF_TASK_INTERRUPTIBLE, 4, PID));
		add(&s, ev(MSPROF_SCHED_IN, 4, t + 1, 0, -1));
		t += 5;
	}
	CU_ASSERT_EQUAL_FATAL(tstate_finish(s, 5000), 0);
	CU_ASSERT_EQUAL(s->spans[0].state, TS_SLEEPING);
	CU_ASSERT_EQUAL(s->spans[s->nspans - 1].end_ns, 5000);
	CU_ASSERT_EQUAL_FATAL(s->threads[0].nlongest, TSTATE_LONGEST);
	for (i = 0; i < TSTATE_LONGEST; i++) {
		const struct tstate_off *o = &s->threads[0].longest[i];

		CU_ASSERT_EQUAL(o->end_ns - o->start_ns, (12 - i) * 10 + 1);
	}
	tstate_free(s);
	CU_ASSERT_EQUAL(tstate_finish(NULL, 0), 0);
}

static int got_size;

static int visit(uint16_t type, const void *body, size_t len, void *ctx)
{
	(void)body;
	(void)ctx;
	if (type == MSPROF_REC_SCHED)
		got_size = (int)len;
	return 0;
}

/* The collector keeps a record whole, and msprof's marks in every sink. */
static void test_collector(void)
{
	char path[] = "/tmp/msprof-tstate-XXXXXX";
	struct collector *c = calloc(1, sizeof(*c));
	struct msprof_sched_event e = ev(MSPROF_SCHED_OUT, 7, 2000, 1, 0);
	struct probe_set ps = { 0 };
	struct collector_sink out;
	int fd, rfd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	rfd = open(path, O_RDONLY);
	unlink(path);
	CU_ASSERT_EQUAL_FATAL(collector_open(c, PID, fd, &ps), 0);
	CU_ASSERT_EQUAL(collector_on_event(c, &e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(collector_on_event(c, &e, sizeof(e) - 1), 0);
	collector_sched_mark(c, MSPROF_SCHED_BEGIN, 1000);
	CU_ASSERT_EQUAL(collector_close(c, PID, &out), 0);
	CU_ASSERT_EQUAL(out.sched_events, 1);
	CU_ASSERT_EQUAL(recfile_read_fd(rfd, NULL, visit, NULL, NULL), 0);
	CU_ASSERT_EQUAL(got_size, (int)sizeof(e));
	close(rfd);
	free(c);
}

static void test_syscall_names(void)
{
	struct tstate_span sp = { .syscall = SYS_clock_nanosleep };
	char buf[32];

	CU_ASSERT_STRING_EQUAL(syscall_name(SYS_futex), "futex");
	CU_ASSERT_STRING_EQUAL(tstate_syscall(&sp, buf, sizeof(buf)), "clock_nanosleep");
	sp.syscall = 100000;
	CU_ASSERT_STRING_EQUAL(tstate_syscall(&sp, buf, sizeof(buf)), "syscall 100000");
	sp.syscall = MSPROF_SCHED_SYSCALL_UNKNOWN;
	CU_ASSERT_STRING_EQUAL(tstate_syscall(&sp, buf, sizeof(buf)), "unknown");
	sp.syscall = -7;	/* no number a kernel saves */
	CU_ASSERT_STRING_EQUAL(tstate_syscall(&sp, buf, sizeof(buf)), "unknown");
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "a sleep: running since the start, woken, waiting, running", test_sleep_cycle },
		{ "first records: runnable or asleep since the start; preempted", test_first_records },
		{ "a lost record is Unknown; an early wake-up changes nothing", test_lost_and_races },
		{ "preempted as it got ready to sleep: runnable", test_preempted_sleeper },
		{ "a switch-in the kernel did not report, placed by CPU time", test_unseen_switch_in },
		{ "records sorted by time; a new thread; an exit; past the end", test_order_exit_new },
		{ "no marks: nothing before the first; the ten longest", test_no_marks_longest },
		{ "the collector keeps records and marks whole", test_collector },
		{ "syscall names from the headers, numbers beyond", test_syscall_names },
		CU_TEST_INFO_NULL,
	};

	return add_suite("tstate", tests);
}

UNIT_SUITE(register_tests)
