// SPDX-License-Identifier: MIT
/*
 * hostsys_cases [--idle-threads N] [--wait both|start|none] [--wait-s S]:
 * a target whose host activity is known, for the --host-sys tests and
 * make bench.  Prints "hostsys_cases pid=<pid> ready" and waits (at most S
 * seconds, default 60) for SIGUSR1; then, with nothing else between:
 *
 *   main thread:  WRITES write(2)s of one byte to /dev/null, READS read(2)s
 *                 from /dev/zero, GETPPIDS getppid(2)s, OPENS openat(2)s of
 *                 /dev/null each followed by close(2);
 *   pthread:      pthread_mutex_init twice, then NR_WORKERS times
 *                 pthread_attr_init and pthread_create, and as many
 *                 pthread_join at the end;
 *   "sleeper":    SLEEPS sleeps of SLEEP_MS (clock_nanosleep);
 *   "spinner":    SPIN_MS of its own CPU time, read by clock_gettime of
 *                 CLOCK_THREAD_CPUTIME_ID, which the vDSO cannot answer:
 *                 a syscall each turn, which no test counts exactly;
 *   "holder":     takes the mutex, lets "waiter" go, sleeps HOLD_MS in one
 *                 clock_nanosleep holding it, and lets it go;
 *   "waiter":     pthread_mutex_lock on that mutex: blocked about HOLD_MS
 *                 (futex), then unlocks it;
 *   each worker names itself by prctl(PR_SET_NAME) first.
 *
 * and then prints "hostsys_cases done" (one write(2) to stdout) and "expect
 * <name> <count>" lines are printed before "ready" for the counts above.
 * Glibc's own thread machinery (mmap, mprotect, clone3, futex, rseq,
 * set_robust_list, rt_sigprocmask, madvise, munmap, exit) adds calls of
 * other names that no test counts exactly.  With --wait both (default) it
 * waits for a second SIGUSR1 before it ends, so that a window can be
 * stopped first; --wait start ends after "done" (a target exiting in the
 * window), --wait none starts at once.  --idle-threads N also starts N
 * threads before "ready" that block until the end (a task with many
 * threads for the sampler).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define WRITES		40
#define READS		30
#define GETPPIDS	20
#define OPENS		10
#define SLEEPS		5
#define SLEEP_MS	20
#define SPIN_MS		200
#define HOLD_MS		100
#define NR_WORKERS	4
#define MAX_IDLE	4096

static pthread_mutex_t held, spare;
static pthread_barrier_t holding;
static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_end = PTHREAD_COND_INITIALIZER;
static int ending;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *sleeper(void *arg)
{
	int i;

	prctl(PR_SET_NAME, "sleeper");
	for (i = 0; i < SLEEPS; i++)
		sleep_ms(SLEEP_MS);
	return arg;
}

static void *spinner(void *arg)
{
	long long end;
	volatile unsigned long n = 0;

	prctl(PR_SET_NAME, "spinner");
	end = cpu_ns() + SPIN_MS * 1000000LL;
	while (cpu_ns() < end)
		n++;
	return arg;
}

static void *holder(void *arg)
{
	prctl(PR_SET_NAME, "holder");
	pthread_mutex_lock(&held);
	pthread_barrier_wait(&holding);
	sleep_ms(HOLD_MS);
	pthread_mutex_unlock(&held);
	return arg;
}

static void *waiter(void *arg)
{
	prctl(PR_SET_NAME, "waiter");
	pthread_barrier_wait(&holding);
	pthread_mutex_lock(&held);
	pthread_mutex_unlock(&held);
	return arg;
}

static void *idle(void *arg)
{
	pthread_mutex_lock(&idle_lock);
	while (!ending)
		pthread_cond_wait(&idle_end, &idle_lock);
	pthread_mutex_unlock(&idle_lock);
	return arg;
}

/* The main thread's syscalls: 0, or 1 if one failed. */
static int main_calls(void)
{
	char c = 'x';
	int i, fd, bad = 0;

	fd = open("/dev/null", O_WRONLY);
	if (fd < 0)
		return 1;
	for (i = 0; i < WRITES; i++)
		bad |= write(fd, &c, 1) != 1;
	close(fd);
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		return 1;
	for (i = 0; i < READS; i++)
		bad |= read(fd, &c, 1) != 1;
	close(fd);
	for (i = 0; i < GETPPIDS; i++)
		getppid();
	for (i = 0; i < OPENS; i++) {
		fd = open("/dev/null", O_RDONLY);
		bad |= fd < 0 || close(fd);
	}
	return bad;
}

static int workers(void)
{
	void *(*const fn[NR_WORKERS])(void *) = { sleeper, spinner, holder, waiter };
	pthread_t t[NR_WORKERS];
	pthread_attr_t attr;
	int i, bad = 0;

	pthread_mutex_init(&held, NULL);
	pthread_mutex_init(&spare, NULL);
	pthread_barrier_init(&holding, NULL, 2);
	for (i = 0; i < NR_WORKERS; i++) {
		pthread_attr_init(&attr);
		bad |= pthread_create(&t[i], &attr, fn[i], NULL);
		pthread_attr_destroy(&attr);
		if (bad)
			return 1;
	}
	for (i = 0; i < NR_WORKERS; i++)
		bad |= pthread_join(t[i], NULL);
	return bad;
}

static int wait_usr1(const sigset_t *set, long secs)
{
	struct timespec ts = { secs, 0 };

	return sigtimedwait(set, NULL, &ts) == SIGUSR1 ? 0 : -1;
}

static void expectations(void)
{
	printf("expect write %d\nexpect read %d\nexpect getppid %d\n"
	       "expect openat %d\nexpect close %d\nexpect clock_nanosleep %d\n"
	       "expect prctl %d\nexpect pthread_mutex_init 2\n"
	       "expect pthread_attr_init %d\nexpect pthread_create %d\n"
	       "expect pthread_join %d\nexpect sleep_ms %d\nexpect spin_ms %d\n"
	       "expect hold_ms %d\n",
	       WRITES + 1, READS, GETPPIDS, OPENS + 2, OPENS + 2, SLEEPS + 1,
	       NR_WORKERS, NR_WORKERS, NR_WORKERS, NR_WORKERS,
	       SLEEPS * SLEEP_MS, SPIN_MS, HOLD_MS);
}

int main(int argc, char **argv)
{
	const char *wait = "both";
	long nidle = 0, wait_s = 60, i;
	pthread_t *idlers;
	sigset_t set;
	int bad;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--idle-threads"))
			nidle = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--wait"))
			wait = argv[i + 1];
		else if (!strcmp(argv[i], "--wait-s"))
			wait_s = atol(argv[i + 1]);
		else
			break;
	}
	if (i != argc || nidle < 0 || nidle > MAX_IDLE || wait_s <= 0 ||
	    (strcmp(wait, "both") && strcmp(wait, "start") && strcmp(wait, "none"))) {
		fprintf(stderr, "usage: hostsys_cases [--idle-threads 0-%d] [--wait both|start|none] [--wait-s S]\n",
			MAX_IDLE);
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	idlers = calloc((size_t)nidle + 1, sizeof(*idlers));
	if (!idlers)
		return 1;
	for (i = 0; i < nidle; i++)
		if (pthread_create(&idlers[i], NULL, idle, NULL))
			return 1;
	expectations();
	printf("hostsys_cases pid=%d ready\n", getpid());
	if (strcmp(wait, "none") && wait_usr1(&set, wait_s)) {
		fprintf(stderr, "hostsys_cases: no SIGUSR1 within %ld s\n", wait_s);
		return 1;
	}
	bad = main_calls() | workers();
	printf("hostsys_cases done\n");
	if (!strcmp(wait, "both") && wait_usr1(&set, wait_s)) {
		fprintf(stderr, "hostsys_cases: no second SIGUSR1 within %ld s\n", wait_s);
		bad = 1;
	}
	pthread_mutex_lock(&idle_lock);
	ending = 1;
	pthread_cond_broadcast(&idle_end);
	pthread_mutex_unlock(&idle_lock);
	for (i = 0; i < nidle; i++)
		pthread_join(idlers[i], NULL);
	free(idlers);
	return bad;
}
