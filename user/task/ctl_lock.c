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

/* What another user could have made or changed is no lock of ours. */
static bool root_only(const struct stat *st, mode_t type)
{
	return (st->st_mode & S_IFMT) == type && st->st_uid == 0 &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH));
}

static int lock_dir(int *dfd)
{
	struct stat st;
	int fd;

	if (mkdir(CTL_LOCK_DIR, 0700) && errno != EEXIST)
		return -errno;
	fd = open(CTL_LOCK_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP || errno == ENOTDIR ? -EPERM : -errno;
	if (fstat(fd, &st) || !root_only(&st, S_IFDIR)) {
		close(fd);
		return -EPERM;
	}
	*dfd = fd;
	return 0;
}

/* The task's pid namespace and its own pid: one name from any namespace. */
static int lock_name(char *name, size_t len, int host_pid, int ns_pid)
{
	struct stat st;
	int err = procfs_ns(host_pid, "pid", &st);

	if (err)
		return err;
	snprintf(name, len, "pidns_%lu_pid_%d.lock", (unsigned long)st.st_ino,
		 ns_pid);
	return 0;
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

static int open_lock_file(int dfd, const char *name)
{
	struct stat st;
	int fd;

	fd = openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno == ELOOP ? -EPERM : -errno;
	if (fstat(fd, &st) || !root_only(&st, S_IFREG)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

static int take(int dfd, const char *name, int *holder)
{
	char buf[32];
	ssize_t n;
	int fd, err;

	for (;;) {
		fd = open_lock_file(dfd, name);
		if (fd < 0)
			return fd;
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
	int err;

	*holder = 0;
	l->fd = -1;
	err = lock_name(l->name, sizeof(l->name), host_pid, ns_pid);
	if (!err)
		err = lock_dir(&l->dir_fd);
	if (err)
		return err;
	l->fd = take(l->dir_fd, l->name, holder);
	if (l->fd >= 0)
		return 0;
	err = l->fd;
	close(l->dir_fd);
	return err;
}

void ctl_unlock(struct ctl_lock *l)
{
	if (l->fd < 0)
		return;
	/* Removed while still held, so nobody can lock a file about to go. */
	unlinkat(l->dir_fd, l->name, 0);
	close(l->dir_fd);
	close(l->fd);
	l->fd = -1;
}
