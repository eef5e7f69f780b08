// SPDX-License-Identifier: MIT
/*
 * call_driver [CALLS]: calls libbench_call.so's bench_call() CALLS times
 * (default 200000) in a tight loop at each SIGUSR1, and prints the time per
 * call measured around the loop, in wall-clock time and in the thread's CPU
 * time (which a busy machine's other work does not stretch).  It waits for the signal so that probes
 * can be attached before it runs; SIGTERM or SIGINT ends it, and so do
 * IDLE_S seconds without a signal (an orphaned driver does not stay).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_CALLS	200000L
#define IDLE_S		600

int bench_call(int x);

static long long now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct timespec idle = { .tv_sec = IDLE_S };
	long calls = DEFAULT_CALLS, i;
	long long t0, t1, c0, c1;
	sigset_t set;
	char *end;
	int sig, acc;

	if (argc > 2 || (argc == 2 && ((calls = strtol(argv[1], &end, 10)) <= 0 ||
				       *end))) {
		fprintf(stderr, "usage: call_driver [CALLS > 0]\n");
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("call_driver %d waiting for SIGUSR1\n", getpid());
	for (;;) {
		sig = sigtimedwait(&set, NULL, &idle);
		if (sig < 0 && errno == EINTR)
			continue;
		if (sig != SIGUSR1)
			return sig < 0 ? 1 : 0;
		acc = 0;
		c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		t0 = now_ns(CLOCK_MONOTONIC);
		for (i = 0; i < calls; i++)
			acc = bench_call(acc);
		t1 = now_ns(CLOCK_MONOTONIC);
		c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		printf("calls %ld ns_per_call %.2f cpu_ns_per_call %.2f acc %d\n",
		       calls, (double)(t1 - t0) / calls,
		       (double)(c1 - c0) / calls, acc);
	}
}
