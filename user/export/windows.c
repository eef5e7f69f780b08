// SPDX-License-Identifier: MIT
/* The PROF_ windows an --output names, for every mode that reads them. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/err.h"
#include "common/fsutil.h"
#include "common/printable.h"
#include "common/proflayout.h"
#include "common/safe_open.h"
#include "windows.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* O_DIRECTORY alone reports a link as -ENOTDIR: tell the two apart. */
/* name in fd as a directory, never a link to one: -ELOOP then. */
static int windows_open_dir(int fd, const char *name)
{
	int sub = openat(fd, name, DIR_FLAGS);
	struct stat st;

	if (sub >= 0 || errno != ENOTDIR)
		return sub >= 0 ? sub : -errno;
	if (!fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
		return -ELOOP;
	return -ENOTDIR;
}

int windows_output_dir_open(int dirfd, const char *name, bool *made)
{
	int fd, err;

	*made = !mkdirat(dirfd, name, 0750);
	if (!*made && errno != EEXIST)
		return -errno;
	fd = windows_open_dir(dirfd, name);
	if (fd < 0)
		return fd;
	err = fsutil_dir_check_ours(fd);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

void windows_output_dir_strerror(char *buf, size_t len, const char *name, int err)
{
	switch (err) {
	case -ELOOP:
		snprintf(buf, len, "%s is a symbolic link: refused", name);
		break;
	case -ENOTDIR:
		snprintf(buf, len, "%s is not a directory: refused", name);
		break;
	case -EPERM:
		snprintf(buf, len, "%s belongs to another user or others can write it: refused",
			 name);
		break;
	default:
		snprintf(buf, len, "%s: %s", name, strerror(-err));
	}
}

/* Named PROF_..., or holding what a window begins with. */
static bool is_window(int fd, const char *dir)
{
	const char *end = dir + strlen(dir), *base;
	struct stat st;

	while (end > dir && end[-1] == '/')
		end--;
	for (base = end; base > dir && base[-1] != '/'; base--)
		;
	return (end - base > 5 && !strncmp(base, PROFDIR_PREFIX, 5)) ||
	       !fstatat(fd, PROFDIR_FACTS, &st, AT_SYMLINK_NOFOLLOW) ||
	       !fstatat(fd, PROFDIR_HOST_START, &st, AT_SYMLINK_NOFOLLOW);
}

static int is_prof_entry(const struct dirent *de)
{
	return !strncmp(de->d_name, PROFDIR_PREFIX, 5);
}

/* Every PROF_ entry is done or named with why not. */
static int walk_all(int fd, const char *dir, const struct window_walk *w)
{
	int i, n, sub, err, ok = 0, part = 0, failed = 0;
	struct dirent **list;
	char label[PATH_MAX + NAME_MAX + 2];

	n = scandirat(fd, ".", &list, is_prof_entry, alphasort);
	if (n < 0) {
		err = -errno;
		ERR("%s: %s", dir, strerror(-err));
		return err;
	}
	for (i = 0; i < n; i++) {
		snprintf(label, sizeof(label), "%s/%s", dir, list[i]->d_name);
		printable(label);
		sub = windows_open_dir(fd, list[i]->d_name);
		if (sub < 0) {
			ERR("%s: not %s: %s", label,
			    w->done, sub == -ENOTDIR ? "not a directory" :
			    safe_open_strerror(sub));
			failed++;
		} else {
			err = w->one(sub, label, w->ctx);
			close(sub);
			ok += !err;
			part += err > 0;
			failed += err < 0;
		}
		free(list[i]);
	}
	free(list);
	if (!n) {
		ERR("%s: no PROF_ directory to %s", dir, w->verb);
		return -ENOENT;
	}
	if (!part && !failed)
		return 0;
	ERR("%s: %d of %d PROF_ entries %s whole, %d in part, %d not %s",
	    dir, ok, n, w->done, part, failed, w->done);
	return failed ? -EIO : -EBADMSG;
}

int windows_walk(const char *dir, const struct window_walk *w)
{
	int err, fd = windows_open_dir(AT_FDCWD, dir);
	char label[PATH_MAX];

	/* Its name in messages: a PROF_ name is whatever its maker chose. */
	snprintf(label, sizeof(label), "%s", dir);
	printable(label);
	if (fd < 0) {
		ERR("%s: %s", label, fd == -ELOOP ?
		    "a symbolic link (not followed): give the directory it names" :
		    strerror(-fd));
		return fd;
	}
	if (is_window(fd, dir)) {
		err = w->one(fd, label, w->ctx);
		if (err > 0)
			err = -EBADMSG;
	} else {
		err = walk_all(fd, label, w);
	}
	close(fd);
	return err;
}
