// SPDX-License-Identifier: MIT
/*
 * Loads the runtime late: at each SIGUSR1 it dlopen()s libnpusim (the
 * first time) and makes K aclrtSetDevice calls, then says "round N done".
 * A library that appears after start is probed from the next start on.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t go, stop;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	int (*set_device)(int) = NULL;
	int (*init)(const char *);
	sigset_t block, old;
	int k, round, i;
	void *lib;

	if (argc != 3) {
		fprintf(stderr, "usage: late_loader <libnpusim.so> <calls per round>\n");
		return 2;
	}
	k = atoi(argv[2]);
	signal(SIGUSR1, on_usr1);
	signal(SIGTERM, on_term);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	/* Its waits for the test's signals are bounded: SIGALRM ends it. */
	alarm(120);
	printf("late_loader pid=%d\n", (int)getpid());
	fflush(stdout);
	for (round = 1; !stop; round++) {
		while (!go && !stop)
			sigsuspend(&old);
		if (stop)
			break;
		go = 0;
		if (!set_device) {
			lib = dlopen(argv[1], RTLD_NOW);
			if (!lib) {
				fprintf(stderr, "late_loader: %s\n", dlerror());
				return 1;
			}
			init = (int (*)(const char *))dlsym(lib, "aclInit");
			set_device = (int (*)(int))dlsym(lib, "aclrtSetDevice");
			if (!init || !set_device || init(NULL))
				return 1;
		}
		for (i = 0; i < k; i++)
			set_device(0);
		printf("round %d done\n", round);
		fflush(stdout);
	}
	return 0;
}
