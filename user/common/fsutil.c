// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "safe_open.h"
#include "testpoint.h"

int fsutil_mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	char *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	/* The root needs no making; "" fails in mkdir() like it should. */
	for (p = buf + (buf[0] == '/');; p++) {
		char c = *p;

		if (c && c != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) && errno != EEXIST)
			return -errno;
		if (!c)
			return 0;
		*p = c;
	}
}

#define DIR_OPEN (O_RDONLY | O_DIRECTORY | O_CLOEXEC)

/* Opens name in dir (made if missing); a link is followed only if it may be. */
static int open_component(int dir, const char *name, mode_t mode, int last,
			  int *fd)
{
	struct stat st;
	int flags = DIR_OPEN | O_NOFOLLOW;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT)
			return -errno;
		/* Someone else's entry made in between: refused below. */
		if (mkdirat(dir, name, mode) && errno != EEXIST)
			return -errno;
	} else if (S_ISLNK(st.st_mode)) {
		/* The system's own links (/var/run) are root's; no one else's. */
		if (last || st.st_uid != 0)
			return -ELOOP;
		flags &= ~O_NOFOLLOW;
	} else if (!S_ISDIR(st.st_mode)) {
		return -ENOTDIR;
	}
	*fd = openat(dir, name, flags);
	return *fd < 0 ? -errno : 0;
}

int fsutil_dir_open_safe(const char *path, mode_t mode, int *out)
{
	char buf[PATH_MAX], *name, *next;
	int dir, fd = -1, err = 0;
	struct stat st;

	if (!*path)
		return -ENOENT;
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	dir = open(*buf == '/' ? "/" : ".", DIR_OPEN);
	if (dir < 0)
		return -errno;
	for (name = buf; !err && name; name = next) {
		next = strchr(name, '/');
		if (next)
			*next++ = '\0';
		/* Skip "//" and a trailing "/"; the last real name decides. */
		while (next && *next == '/')
			next++;
		if (next && !*next)
			next = NULL;
		if (!*name)
			continue;
		err = open_component(dir, name, mode, !next, &fd);
		if (!err) {
			close(dir);
			dir = fd;
		}
	}
	if (!err && fstat(dir, &st))
		err = -errno;
	if (!err && st.st_uid != 0 && st.st_uid != geteuid())
		err = -EPERM;
	else if (!err && (st.st_mode & (S_IWGRP | S_IWOTH)) &&
		 !(st.st_mode & S_ISVTX))
		err = -EACCES;
	if (err) {
		close(dir);
		return err;
	}
	*out = dir;
	return 0;
}

const char *fsutil_dir_open_problem(int err)
{
	switch (err) {
	case -ELOOP:
		return "is a symbolic link, or passes through one root does not own";
	case -ENOTDIR:
		return "is not a directory";
	case -EPERM:
		return "is owned by another user";
	case -EACCES:
		return "is writable by group or others and not sticky";
	default:
		return NULL;
	}
}

int fsutil_dir_for_each(int dir, dir_entry_fn fn, void *ctx)
{
	struct dirent *de;
	int fd, ret, err = 0;
	DIR *d;

	fd = openat(dir, ".", DIR_OPEN | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		err = -errno;
		close(fd);
		return err;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ret = fn(dir, de->d_name, ctx);
		err = err ?: ret;
	}
	closedir(d);
	return err;
}

int fsutil_create_at(int dir, const char *path, int *fd)
{
	*fd = safe_openat_beneath(dir, path, O_WRONLY | O_CREAT | O_EXCL, 0640);
	return *fd < 0 ? *fd : 0;
}

/* The len bytes of buf into fd, synced; fd is closed. */
static int write_close(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;
	int err = 0;

	while (len && !err) {
		n = write(fd, p, len);
		if (n < 0) {
			err = errno == EINTR ? 0 : -errno;
			continue;
		}
		p += n;
		len -= (size_t)n;
	}
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int fsutil_write_new_at(int dir, const char *name, const void *buf, size_t len)
{
	int fd, err;

	err = fsutil_create_at(dir, name, &fd);
	return err ?: write_close(fd, buf, len);
}

int fsutil_write_replace_at(int dir, const char *name, const void *buf, size_t len)
{
	char tmp[NAME_MAX + 1];
	int err;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", name) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if (unlinkat(dir, tmp, 0) && errno != ENOENT)
		return -errno;
	err = fsutil_write_new_at(dir, tmp, buf, len);
	testpoint("replace-before-rename");
	if (!err && renameat(dir, tmp, dir, name))
		err = -errno;
	if (err) {
		unlinkat(dir, tmp, 0);
		return err;
	}
	return fsync(dir) ? -errno : 0;
}

int fsutil_create_temp_at(int dir, const char *name, char *tmp, size_t len)
{
	unsigned long long rnd;
	int i, fd, err = -EEXIST;

	for (i = 0; i < 8 && err == -EEXIST; i++) {
		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			return -errno;
		snprintf(tmp, len, ".%s.%016llx.tmp", name, rnd);
		err = fsutil_create_at(dir, tmp, &fd);
	}
	return err ?: fd;
}

int fsutil_write_temp_at(int dir, const char *name, const void *buf, size_t len,
		  char *tmp, size_t tmplen)
{
	int err, fd = fsutil_create_temp_at(dir, name, tmp, tmplen);

	if (fd < 0)
		return fd;
	err = write_close(fd, buf, len);
	if (err)
		unlinkat(dir, tmp, 0);
	return err;
}

int fsutil_dir_check_ours(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if ((st.st_uid != geteuid() && st.st_uid != 0) ||
	    (st.st_mode & S_IWOTH) ||
	    ((st.st_mode & S_IWGRP) && st.st_gid != getegid() && st.st_gid != 0))
		return -EPERM;
	return 0;
}

/*
 * Copies size bytes at most of in, from its start, to out (a file that
 * may still be growing is taken as it was), adding what was written to
 * *bytes; out is synced.  0 or -errno.
 */
static int fsutil_copy_fd(int in, off_t size, int out, unsigned long long *bytes)
{
	off_t left = size, at = 0;
	ssize_t n;

	/* From the start, wherever a caller's lseek() left the offset. */
	while (left > 0) {
		n = sendfile(out, in, &at, (size_t)(left < (1 << 30) ? left : (1 << 30)));
		if (n < 0)
			return -errno;
		if (!n)
			break;
		left -= n;
		*bytes += (unsigned long long)n;
	}
	return fsync(out) ? -errno : 0;
}

int fsutil_move_file_at(int from, const char *name, int in, off_t size, int to,
		 unsigned long long *bytes)
{
	int out, err;

	err = fsutil_create_at(to, name, &out);
	if (err)
		return err;
	err = fsutil_copy_fd(in, size, out, bytes);
	if (close(out) && !err)
		err = -errno;
	/* A part of a file is no file: the window says what it lacks. */
	unlinkat(err ? to : from, name, 0);
	return err;
}

/* Deep enough for what an agent writes; a deeper tree is left. */
#define REMOVE_DEPTH 8

struct removal {
	uid_t owner;	/* whose directories may be emptied */
	int depth;
};

/*
 * rm -r of one entry.  Unlinking in the owner's directories takes nothing
 * that user could not take; only those are emptied.  (Moving someone
 * else's directory in would take write access to it; the owner check
 * costs one fstat.)
 */
static int remove_at(int dir, const char *name, void *ctx)
{
	const struct removal *up = ctx;
	struct removal down = { .owner = up->owner, .depth = up->depth + 1 };
	struct stat st;
	int sub, err;

	if (!unlinkat(dir, name, 0))
		return 0;
	if (errno != EISDIR)
		return -errno;
	if (down.depth > REMOVE_DEPTH)
		return -ELOOP;
	sub = safe_openat_beneath(dir, name, DIR_OPEN | O_NOFOLLOW, 0);
	if (sub < 0)
		return sub;
	if (fstat(sub, &st) || st.st_uid != up->owner) {
		close(sub);
		return -EPERM;
	}
	err = fsutil_dir_for_each(sub, remove_at, &down);
	close(sub);
	if (unlinkat(dir, name, AT_REMOVEDIR) && !err)
		err = -errno;
	return err;
}

int fsutil_dir_remove_all(int dir, uid_t owner)
{
	struct removal top = { .owner = owner };

	return fsutil_dir_for_each(dir, remove_at, &top);
}
