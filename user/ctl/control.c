// SPDX-License-Identifier: MIT
/* The control FIFO: made anew, checked once opened, removed only if ours. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/err.h"
#include "common/fsutil.h"
#include "control.h"

/* "%h" → host name up to its first dot, "%%" → "%"; nothing else after '%'. */
static int expand(const char *tmpl, char *out, size_t len)
{
	char host[256] = "";
	size_t n = 0;

	if (gethostname(host, sizeof(host) - 1))
		return -errno;
	host[strcspn(host, ".")] = '\0';
	if (!*host || strchr(host, '/'))
		return -EINVAL;
	for (; *tmpl; tmpl++) {
		const char *add = tmpl;
		size_t k = 1;

		if (*tmpl == '%') {
			tmpl++;
			if (*tmpl == 'h') {
				add = host;
				k = strlen(host);
			} else if (*tmpl != '%') {
				return -EINVAL;
			}
		}
		if (n + k >= len)
			return -ENAMETOOLONG;
		memcpy(out + n, add, k);
		n += k;
	}
	out[n] = '\0';
	return 0;
}

/* Splits path into its directory dir (opened as --output is) and its name. */
static int open_parent(struct control *c, char *dir, size_t len)
{
	char *slash = strrchr(c->path, '/');
	const char *name = slash ? slash + 1 : c->path;

	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") ||
	    strlen(name) >= sizeof(c->name))
		return -EISDIR;
	memcpy(c->name, name, strlen(name) + 1);
	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == c->path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - c->path), c->path);
	return fsutil_dir_open_safe(dir, 0700, &c->dir);
}

/* What we opened is the FIFO mkfifoat() made: ours, 0600, one name. */
static int check_ours(struct control *c)
{
	struct stat st;

	if (fstat(c->fd, &st))
		return -errno;
	if (!S_ISFIFO(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_nlink != 1 || (st.st_mode & 077))
		return -EPERM;
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	/* A umask may have taken our write bit: the mode is ours to set. */
	return fchmod(c->fd, 0600) ? -errno : 0;
}

static const char *problem(int err)
{
	switch (err) {
	case -EEXIST:
		return "something is already there (msprof makes the FIFO itself: remove it or pick another path)";
	case -EISDIR:
		return "names a directory, not a file to make";
	case -EPERM:
		return "is not the FIFO msprof made";
	case -EINVAL:
		return "takes %h (the host name) and %% only, and a host name without '/'";
	default:
		return strerror(-err);
	}
}

int control_open(struct control *c, const char *tmpl)
{
	char dir[PATH_MAX] = "";
	const char *why = NULL;
	int err;

	c->dir = -1;
	c->fd = -1;
	err = expand(tmpl, c->path, sizeof(c->path));
	if (!err) {
		err = open_parent(c, dir, sizeof(dir));
		why = err ? fsutil_dir_open_problem(err) : NULL;
	}
	if (!err)
		err = mkfifoat(c->dir, c->name, 0600) ? -errno : 0;
	if (!err) {
		/* Read and write: the FIFO never reads as ended between writers. */
		c->fd = openat(c->dir, c->name, O_RDWR | O_NONBLOCK |
			       O_NOFOLLOW | O_CLOEXEC);
		err = c->fd < 0 ? -errno : check_ours(c);
	}
	if (!err)
		return 0;
	if (why)
		ERR("--control %s: the directory %s %s", c->path, dir, why);
	else
		ERR("--control %s: %s", *c->path ? c->path : tmpl, problem(err));
	/* Only a FIFO we made and checked is ever removed: none here. */
	if (c->fd >= 0)
		close(c->fd);
	if (c->dir >= 0)
		close(c->dir);
	c->fd = c->dir = -1;
	return err;
}

void control_close(struct control *c)
{
	struct stat st;

	if (c->fd < 0)
		return;
	close(c->fd);
	if (!fstatat(c->dir, c->name, &st, AT_SYMLINK_NOFOLLOW) &&
	    st.st_dev == c->dev && st.st_ino == c->ino && S_ISFIFO(st.st_mode) &&
	    unlinkat(c->dir, c->name, 0))
		ERR("cannot remove the control FIFO %s: %s", c->path,
		    strerror(errno));
	close(c->dir);
	c->fd = c->dir = -1;
}
