// SPDX-License-Identifier: MIT
/*
 * call_driver [CALLS [THREADS [RATE [getppid]]]]: at each SIGUSR1, THREADS
 * threads (default 1) each call libbench_call.so's bench_call() (or, with
 * getppid, make the getppid() syscall) CALLS times (default 200000), as
 * fast as they can or, with a RATE > 0, paced to RATE calls a second each;
 * then it prints the time per call of one
 * thread, in wall-clock time and in its CPU time (which a busy machine's
 * other work does not stretch), and the calls a second of all of them,
 * measured around the loops.  It waits for the signal so that probes can be attached before
 * it runs; SIGTERM or SIGINT ends it, and so do IDLE_S seconds without a
 * signal (an orphaned driver does not stay).
 */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_CALLS	200000L
#define MAX_THREADS	64
#define IDLE_S		600
/*
 * A paced thread that fell this far behind (preempted) drops the calls it
 * missed instead of making them up in a burst: the rate asked for is a
 * steady one, not an average over bursts.
 */
#define MAX_LAG_NS	1000000LL

int bench_call(int x);

struct loop {
	long calls;
	bool syscalls;		/* getppid() in place of bench_call() */
	long long interval_ns;	/* 0: unpaced */
	int acc;
	long long cpu_ns;	/* the thread's CPU time in its loop */
	pthread_t thread;
};

static long long now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *run_loop(void *arg)
{
	struct loop *l = arg;
	long long next, now, c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	long i;
	int acc = 0;

	if (l->syscalls) {
		/* syscall(): a libc that caches getppid() would time nothing. */
		for (i = 0; i < l->calls; i++)
			acc += (int)syscall(SYS_getppid);
	} else if (!l->interval_ns) {
		for (i = 0; i < l->calls; i++)
			acc = bench_call(acc);
	} else {
		next = now_ns(CLOCK_MONOTONIC);
		for (i = 0; i < l->calls; i++) {
			/* Busy: a sleep's wake-up is coarser than the intervals asked. */
			while ((now = now_ns(CLOCK_MONOTONIC)) < next)
				;
			acc = bench_call(acc);
			next += l->interval_ns;
			if (now - next > MAX_LAG_NS)
				next = now;
		}
	}
	l->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	l->acc = acc;
	return NULL;
}

/* One round: every thread's loop; 0 or -errno. */
static int round_of(struct loop *loops, int threads)
{
	long long t0, t1;
	int i, started, err = 0, acc = 0;

	t0 = now_ns(CLOCK_MONOTONIC);
	for (started = 0; started < threads; started++) {
		err = -pthread_create(&loops[started].thread, NULL, run_loop,
				      &loops[started]);
		if (err)
			break;
	}
	for (i = 0; i < started; i++) {
		pthread_join(loops[i].thread, NULL);
		acc += loops[i].acc;
	}
	t1 = now_ns(CLOCK_MONOTONIC);
	if (err)
		return err;
	printf("calls %ld ns_per_call %.2f cpu_ns_per_call %.2f acc %d threads %d calls_per_s %.0f\n",
	       loops[0].calls, (double)(t1 - t0) / loops[0].calls,
	       (double)loops[0].cpu_ns / loops[0].calls, acc, threads,
	       (double)loops[0].calls * threads * 1e9 / (double)(t1 - t0));
	return 0;
}

/* argv[i] as a number in [min, max], or def if there is no argv[i]. */
static int arg_num(int argc, char **argv, int i, long min, long max, long def,
		   long *out)
{
	char *end;

	*out = def;
	if (i >= argc)
		return 0;
	errno = 0;
	*out = strtol(argv[i], &end, 10);
	return errno || end == argv[i] || *end || *out < min || *out > max ?
	       -1 : 0;
}

int main(int argc, char **argv)
{
	bool syscalls = argc == 5 && !strcmp(argv[4], "getppid");
	struct timespec idle = { .tv_sec = IDLE_S };
	struct loop loops[MAX_THREADS];
	long calls, threads, rate;
	sigset_t set;
	int i, sig, err;

	if (argc > 5 || (argc == 5 && (!syscalls || strcmp(argv[3], "0"))) ||
	    arg_num(argc, argv, 1, 1, 1000000000L, DEFAULT_CALLS, &calls) ||
	    arg_num(argc, argv, 2, 1, MAX_THREADS, 1, &threads) ||
	    arg_num(argc, argv, 3, 0, 1000000000L, 0, &rate)) {
		fprintf(stderr, "usage: call_driver [CALLS > 0 [THREADS 1-%d [RATE per thread, 0: unpaced [getppid: syscalls, unpaced]]]]\n",
			MAX_THREADS);
		return 2;
	}
	for (i = 0; i < threads; i++)
		loops[i] = (struct loop){
			.calls = calls, .syscalls = syscalls,
			.interval_ns = rate ? 1000000000LL / rate : 0,
		};
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	/* Blocked before any thread exists, so every thread inherits it. */
	sigprocmask(SIG_BLOCK, &set, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("call_driver %d waiting for SIGUSR1\n", getpid());
	for (;;) {
		sig = sigtimedwait(&set, NULL, &idle);
		if (sig < 0 && errno == EINTR)
			continue;
		if (sig != SIGUSR1)
			return sig < 0 ? 1 : 0;
		err = round_of(loops, (int)threads);
		if (err) {
			fprintf(stderr, "call_driver: cannot start a thread: %s\n",
				strerror(-err));
			return 1;
		}
	}
}
