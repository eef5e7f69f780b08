// SPDX-License-Identifier: MIT
/*
 * neighbour [CALLS]: what a process that is no target pays for its
 * syscalls while msprof's syscall hooks are attached.  Times CALLS
 * getppid() syscalls (default 1000000) and CALLS ioctls on a pipe (FIONREAD:
 * no device node of a pack's), each loop around with CLOCK_MONOTONIC, and
 * prints the time per call of each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_CALLS	1000000L

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long calls = DEFAULT_CALLS, i;
	long long t0, t1, t2;
	int fds[2], n;
	char *end;

	if (argc > 2 || (argc == 2 && ((calls = strtol(argv[1], &end, 10)) <= 0 ||
				       *end))) {
		fprintf(stderr, "usage: neighbour [CALLS > 0]\n");
		return 2;
	}
	if (pipe(fds)) {
		perror("neighbour: pipe");
		return 1;
	}
	/* syscall(): a libc that caches getppid() would time nothing. */
	t0 = now_ns();
	for (i = 0; i < calls; i++)
		syscall(SYS_getppid);
	t1 = now_ns();
	for (i = 0; i < calls; i++)
		if (ioctl(fds[0], FIONREAD, &n)) {
			perror("neighbour: ioctl FIONREAD");
			return 1;
		}
	t2 = now_ns();
	printf("calls %ld syscall_ns %.2f ioctl_ns %.2f\n", calls,
	       (double)(t1 - t0) / calls, (double)(t2 - t1) / calls);
	return 0;
}
