// SPDX-License-Identifier: MIT
/*
 * pingpong [TRIPS]: what two processes that are no target pay for their
 * context switches while msprof's thread-state hooks are attached.  A
 * parent and a child, both on the first CPU this process may use, hand
 * a byte back and forth over two pipes TRIPS times (default 200000):
 * every trip is two wake-ups and two switches each way.  Prints the time
 * per round trip, CLOCK_MONOTONIC around the loop, and the CPU time both
 * took a trip (the child's whole life, which is the loop's but for its
 * start), which the machine's other work does not stretch.
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_TRIPS	200000L

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* User and system time of who (RUSAGE_SELF, RUSAGE_CHILDREN), in ns. */
static long long cpu_ns(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

/* Both on one CPU: each hand-over is then a switch, not an idle CPU's wake-up. */
static int one_cpu(void)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set); cpu++)
		;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* The child's side: answers every byte until the pipe closes. */
static int echo(int in, int out)
{
	char c;
	ssize_t n;

	while ((n = read(in, &c, 1)) == 1)
		if (write(out, &c, 1) != 1)
			return 1;
	return n != 0;
}

int main(int argc, char **argv)
{
	long trips = DEFAULT_TRIPS, i;
	int to_child[2], to_parent[2], status;
	long long t0, t1, c0, c1;
	char *end, c = 'x';
	pid_t child;

	if (argc > 2 || (argc == 2 && ((trips = strtol(argv[1], &end, 10)) <= 0 ||
				       *end))) {
		fprintf(stderr, "usage: pingpong [TRIPS > 0]\n");
		return 2;
	}
	if (one_cpu() || pipe(to_child) || pipe(to_parent)) {
		perror("pingpong");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("pingpong: fork");
		return 1;
	}
	if (!child) {
		close(to_child[1]);
		close(to_parent[0]);
		_exit(echo(to_child[0], to_parent[1]));
	}
	close(to_child[0]);
	close(to_parent[1]);
	c0 = cpu_ns(RUSAGE_SELF);
	t0 = now_ns();
	for (i = 0; i < trips; i++)
		if (write(to_child[1], &c, 1) != 1 || read(to_parent[0], &c, 1) != 1) {
			perror("pingpong: pipe");
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
			return 1;
		}
	t1 = now_ns();
	c1 = cpu_ns(RUSAGE_SELF);
	close(to_child[1]);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "pingpong: the child failed\n");
		return 1;
	}
	printf("trips %ld roundtrip_ns %.2f cpu_ns %.2f\n", trips,
	       (double)(t1 - t0) / trips,
	       (double)(c1 - c0 + cpu_ns(RUSAGE_CHILDREN)) / trips);
	return 0;
}
