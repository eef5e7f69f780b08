// SPDX-License-Identifier: MIT
/* Host data files cut into msprof's 2 MB slices. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "proflayout.h"
#include "safe_open.h"
#include "textslice.h"

int textslice_init(struct textslice *ts, int dir, const char *name)
{
	memset(ts, 0, sizeof(*ts));
	ts->dir = dir;
	ts->fd = -1;
	if (strlen(name) >= sizeof(ts->name))
		return -ENAMETOOLONG;
	strcpy(ts->name, name);
	return 0;
}

static void slice_path(const struct textslice *ts, char *path, size_t len)
{
	snprintf(path, len, PROFDIR_HOST_DATA "/%s.slice_%u", ts->name,
		 ts->index);
}

static int next_slice(struct textslice *ts)
{
	char path[sizeof(PROFDIR_HOST_DATA) + TEXTSLICE_NAME + 24];
	int err;

	if (ts->fd >= 0 || ts->released) {
		err = textslice_close(ts);
		if (err)
			return err;
		ts->index++;
	}
	ts->released = false;
	slice_path(ts, path, sizeof(path));
	ts->size = 0;
	return fsutil_create_at(ts->dir, path, &ts->fd);
}

/* The released slice again, to append to: the one this writer made. */
static int reopen_slice(struct textslice *ts)
{
	char path[sizeof(PROFDIR_HOST_DATA) + TEXTSLICE_NAME + 24];
	int fd;

	slice_path(ts, path, sizeof(path));
	fd = safe_openat_beneath(ts->dir, path, O_WRONLY | O_APPEND | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	ts->fd = fd;
	ts->released = false;
	return 0;
}

bool textslice_starts_slice(const struct textslice *ts, size_t len)
{
	return (ts->fd < 0 && !ts->released) || ts->size + len > TEXTSLICE_MAX;
}

int textslice_write(struct textslice *ts, const void *buf, size_t len)
{
	int err;

	if (len > TEXTSLICE_MAX)
		return -EMSGSIZE;
	if (textslice_starts_slice(ts, len)) {
		err = next_slice(ts);
		if (err)
			return err;
	} else if (ts->fd < 0) {
		err = reopen_slice(ts);
		if (err)
			return err;
	}
	err = fsutil_write_all(ts->fd, buf, len);
	if (err)
		return err;
	ts->size += len;
	ts->bytes += len;
	return 0;
}

int textslice_close(struct textslice *ts)
{
	int err = 0;

	ts->released = false;
	if (ts->fd < 0)
		return 0;
	if (fsync(ts->fd))
		err = -errno;
	if (close(ts->fd) && !err)
		err = -errno;
	ts->fd = -1;
	return err;
}

int textslice_release(struct textslice *ts)
{
	int err = 0;

	if (ts->fd < 0)
		return 0;
	if (close(ts->fd))
		err = -errno;
	ts->fd = -1;
	ts->released = true;
	return err;
}
