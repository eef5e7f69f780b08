// SPDX-License-Identifier: MIT
/* One controller per task. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl_lock.h"

static void lock_path(char *path, size_t len, int host_pid, int ns_pid)
{
	snprintf(path, len, "/proc/%d/root/tmp/.msprof_ctl_%d.lock", host_pid,
		 ns_pid);
}

/* The lock is ours only if the file we locked is still the one named. */
static bool still_named(int fd, const char *path)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat(path, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

static int busy(int fd, int *holder)
{
	int err = errno == EWOULDBLOCK ? -EBUSY : -errno;
	char buf[32];
	ssize_t n;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n > 0) {
		buf[n] = '\0';
		*holder = atoi(buf);
	}
	close(fd);
	return err;
}

int ctl_lock(int host_pid, int ns_pid, int *holder)
{
	char path[96], buf[32];
	ssize_t n;
	int fd, err;

	*holder = 0;
	lock_path(path, sizeof(path), host_pid, ns_pid);
	for (;;) {
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX | LOCK_NB))
			return busy(fd, holder);
		if (still_named(fd, path))
			break;
		/* Its last holder removed it between our open and flock. */
		close(fd);
	}
	/* Our pid, for the message a second controller prints. */
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, buf, (size_t)n, 0) != n) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

void ctl_unlock(int fd, int host_pid, int ns_pid)
{
	char path[96];

	if (fd < 0)
		return;
	/* Removed while still held, so nobody can lock a file about to go. */
	lock_path(path, sizeof(path), host_pid, ns_pid);
	unlink(path);
	close(fd);
}
