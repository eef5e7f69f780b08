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
#include "procfs.h"

static void lock_name(char *name, size_t len, int ns_pid)
{
	snprintf(name, len, ".msprof_ctl_%d.lock", ns_pid);
}

/* The task's /tmp, resolved inside its root: its links never reach ours. */
static int task_tmp(int host_pid, int *dfd)
{
	return procfs_open_in_root(host_pid, "/tmp", O_PATH | O_DIRECTORY, dfd);
}

/* The lock is ours only if the file we locked is still the one named. */
static bool still_named(int fd, int dfd, const char *name)
{
	struct stat a, b;

	return !fstat(fd, &a) && !fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
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

static int take(int dfd, const char *name, int *holder)
{
	char buf[32];
	ssize_t n;
	int fd, err;

	for (;;) {
		fd = openat(dfd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
			    0600);
		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX | LOCK_NB))
			return busy(fd, holder);
		if (still_named(fd, dfd, name))
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

int ctl_lock(int host_pid, int ns_pid, int *holder)
{
	char name[64];
	int dfd, fd, err;

	*holder = 0;
	lock_name(name, sizeof(name), ns_pid);
	err = task_tmp(host_pid, &dfd);
	if (err)
		return err;
	fd = take(dfd, name, holder);
	close(dfd);
	return fd;
}

void ctl_unlock(int fd, int host_pid, int ns_pid)
{
	char name[64];
	int dfd;

	if (fd < 0)
		return;
	/* Removed while still held, so nobody can lock a file about to go. */
	lock_name(name, sizeof(name), ns_pid);
	if (!task_tmp(host_pid, &dfd)) {
		unlinkat(dfd, name, 0);
		close(dfd);
	}
	close(fd);
}
