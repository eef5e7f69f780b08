// SPDX-License-Identifier: MIT
/* One controller per task. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ctl_lock.h"
#include "proc/procfs.h"

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

int ctl_lock_parse_flock(const char *line, dev_t dev, ino_t ino, int *pid)
{
	unsigned int maj, min;
	unsigned long long i;
	char kind[8];
	int p;

	/* A waiter's line ("N: -> FLOCK ...") holds nothing. */
	if (sscanf(line, "%*d: %7s %*s %*s %d %x:%x:%llu", kind, &p, &maj,
		   &min, &i) != 5 ||
	    strcmp(kind, "FLOCK"))
		return -ENOENT;
	if (maj != major(dev) || min != minor(dev) || i != (unsigned long long)ino)
		return -ENOENT;
	*pid = p;
	return 0;
}

/* Far more locks than a machine holds: the table is read no further. */
#define LOCKS_MAX_LINES (1u << 20)

/*
 * The flock on the file st names, from the kernel's table of locks: 1 if
 * one is held (a file a killed holder left is not), else 0.
 */
static int flock_holder(const struct stat *st, int *holder)
{
	char line[256];
	unsigned int n;
	int c, found = 0;
	FILE *fp;

	fp = fopen("/proc/locks", "re");
	if (!fp)
		return -errno;
	for (n = 0; n < LOCKS_MAX_LINES && fgets(line, sizeof(line), fp); n++) {
		if (!strchr(line, '\n')) {	/* not a line of the table's */
			while ((c = getc(fp)) != EOF && c != '\n')
				;
			continue;
		}
		found = !ctl_lock_parse_flock(line, st->st_dev, st->st_ino, holder);
		if (found)
			break;
	}
	fclose(fp);
	return found;
}

int ctl_lock_holder(int host_pid, int ns_pid, int *holder)
{
	char name[64];
	struct stat st;
	int dfd, err;

	*holder = 0;
	err = lock_name(name, sizeof(name), host_pid, ns_pid);
	if (err)
		return err;
	/*
	 * Looked at, never made nor locked: even a shared flock for a moment
	 * would turn a controller starting then away.
	 */
	dfd = open(CTL_LOCK_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(dfd, &st) || !root_only(&st, S_IFDIR))
		err = -EPERM;
	else if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		err = errno == ENOENT ? 0 : -errno;
	else if (!root_only(&st, S_IFREG))
		err = -EPERM;
	else
		err = flock_holder(&st, holder);
	close(dfd);
	return err;
}
