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

int ctl_lock(struct ctl_lock *l, int host_pid, int ns_pid, int *holder)
{
	char name[64];
	int err;

	*holder = 0;
	l->fd = -1;
	l->ns_pid = ns_pid;
	lock_name(name, sizeof(name), ns_pid);
	err = task_tmp(host_pid, &l->dir_fd);
	if (err)
		return err;
	l->fd = take(l->dir_fd, name, holder);
	if (l->fd >= 0)
		return 0;
	err = l->fd;
	close(l->dir_fd);
	return err;
}

void ctl_unlock(struct ctl_lock *l)
{
	char name[64];

	if (l->fd < 0)
		return;
	/* Removed while still held, so nobody can lock a file about to go. */
	lock_name(name, sizeof(name), l->ns_pid);
	unlinkat(l->dir_fd, name, 0);
	close(l->dir_fd);
	close(l->fd);
	l->fd = -1;
}
