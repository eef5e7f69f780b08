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
#include <sys/statvfs.h>
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

int fsutil_write_all(int fd, const void *buf, size_t len)
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
	return err;
}

/* The len bytes of buf into fd, synced; fd is closed. */
static int write_close(int fd, const void *buf, size_t len)
{
	int err = fsutil_write_all(fd, buf, len);

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
 * The reserve a copy leaves free on fd's file system: FSUTIL_RESERVE_PERCENT
 * of its blocks (at most FSUTIL_RESERVE_MAX bytes) and of its inodes (at
 * most FSUTIL_RESERVE_INODES; none where the file system counts none).
 */
int fsutil_room(int fd, struct fsutil_budget *b, unsigned long long need)
{
	unsigned long long avail, reserve, inodes;
	struct statvfs sv;

	b->refused = FSUTIL_FITS;
	if (b->used > b->max || need > b->max - b->used) {
		b->refused = FSUTIL_OVER_BUDGET;
		return -ENOSPC;
	}
	if (fstatvfs(fd, &sv))
		return -errno;
	avail = (unsigned long long)sv.f_bavail * sv.f_frsize;
	reserve = (unsigned long long)sv.f_blocks * sv.f_frsize / 100 *
		  FSUTIL_RESERVE_PERCENT;
	b->reserve = reserve < FSUTIL_RESERVE_MAX ? reserve : FSUTIL_RESERVE_MAX;
	if (avail < b->reserve || need > avail - b->reserve) {
		b->refused = FSUTIL_OVER_RESERVE;
		return -ENOSPC;
	}
	inodes = (unsigned long long)sv.f_files / 100 * FSUTIL_RESERVE_PERCENT;
	if (inodes > FSUTIL_RESERVE_INODES)
		inodes = FSUTIL_RESERVE_INODES;
	if (sv.f_files && sv.f_favail <= inodes) {
		b->reserve = inodes;
		b->refused = FSUTIL_OVER_INODES;
		return -ENOSPC;
	}
	return 0;
}

const char *fsutil_size_text(unsigned long long n, char *buf, size_t len)
{
	static const char *const units[] = {
		"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
	};
	unsigned long long tenths = 0;
	unsigned int u = 0;

	for (; n >= 1024 && u + 1 < sizeof(units) / sizeof(units[0]); u++) {
		tenths = n % 1024 * 10 / 1024;
		n /= 1024;
	}
	if (tenths)
		snprintf(buf, len, "%llu.%llu %s", n, tenths, units[u]);
	else
		snprintf(buf, len, "%llu %s", n, units[u]);
	return buf;
}

const char *fsutil_refusal_text(const struct fsutil_budget *b, char *buf, size_t len)
{
	char size[32];

	switch (b->refused) {
	case FSUTIL_OVER_BUDGET:
		snprintf(buf, len, "past the copy budget of %s",
			 fsutil_size_text(b->max, size, sizeof(size)));
		break;
	case FSUTIL_OVER_RESERVE:
		snprintf(buf, len, "into the free-space reserve (%s) of the file system",
			 fsutil_size_text(b->reserve, size, sizeof(size)));
		break;
	case FSUTIL_OVER_INODES:
		snprintf(buf, len,
			 "into the free-inode reserve (%llu inodes) of the file system",
			 b->reserve);
		break;
	default:
		snprintf(buf, len, "within its budget");
	}
	return buf;
}

/* A piece of a copy, checked on its own: holes filled since count too. */
#define COPY_PIECE (64ll << 20)

/* in's bytes [at, end) to out at the same offsets, each piece in b first. */
static int copy_span(int in, off_t at, off_t end, int out,
		     struct fsutil_budget *b)
{
	off_t want;
	ssize_t n;
	int err;

	if (lseek(out, at, SEEK_SET) < 0)
		return -errno;
	while (at < end) {
		want = end - at < COPY_PIECE ? end - at : COPY_PIECE;
		err = fsutil_room(out, b, (unsigned long long)want);
		if (err)
			return err;
		n = sendfile(out, in, &at, (size_t)want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -ENODATA;
		b->used += (unsigned long long)n;
	}
	return 0;
}

/*
 * The next span of data in in from at, before size: [*start, *end).  1 if
 * there is one, 0 if only a hole is left, or -errno.  A file system that
 * knows no SEEK_DATA (EINVAL) has all of it as data.
 */
static int next_data(int in, off_t at, off_t size, off_t *start, off_t *end)
{
	*start = lseek(in, at, SEEK_DATA);
	if (*start < 0 && errno == EINVAL) {
		*start = at;
		*end = size;
		return 1;
	}
	if (*start < 0)
		return errno == ENXIO ? 0 : -errno;
	if (*start >= size)
		return 0;
	*end = lseek(in, *start, SEEK_HOLE);
	if (*end < 0)
		return -errno;
	if (*end > size)
		*end = size;
	return 1;
}

/*
 * Walks in's data up to size, hole by hole: with out < 0 only adds up its
 * bytes in *data, else copies each span.
 */
static int walk_data(int in, off_t size, int out, struct fsutil_budget *b,
		     unsigned long long *data)
{
	off_t at = 0, start = 0, end = 0;
	int more;

	while (at < size) {
		more = next_data(in, at, size, &start, &end);
		if (more <= 0)
			return more;
		if (out < 0)
			*data += (unsigned long long)(end - start);
		else if ((more = copy_span(in, start, end, out, b)))
			return more;
		at = end;
	}
	return 0;
}

int fsutil_copy_data(int in, off_t size, int out, struct fsutil_budget *b)
{
	unsigned long long data = 0;
	struct stat st;
	int err;

	/* The whole file's data must fit before a byte of it is written. */
	err = walk_data(in, size, -1, b, &data);
	if (!err)
		err = fsutil_room(out, b, data);
	if (!err)
		err = walk_data(in, size, out, b, NULL);
	/* A hole at the end is made by the size alone. */
	if (!err && ftruncate(out, size))
		err = -errno;
	/* Shrunk: what looked like a hole at its end was no part of it. */
	if (!err && fstat(in, &st))
		err = -errno;
	else if (!err && st.st_size < size)
		err = -ENODATA;
	return err;
}

int fsutil_move_file_at(int from, const char *name, int in, off_t size, int to,
			struct fsutil_budget *b)
{
	int out, err;

	err = fsutil_create_at(to, name, &out);
	if (err)
		return err;
	err = fsutil_copy_data(in, size, out, b);
	if (!err && fsync(out))
		err = -errno;
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
