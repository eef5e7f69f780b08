// SPDX-License-Identifier: MIT
/* Host data files cut into msprof's 2 MB slices. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "proflayout.h"
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

static int next_slice(struct textslice *ts)
{
	char path[sizeof(PROFDIR_HOST_DATA) + TEXTSLICE_NAME + 24];
	int err;

	if (ts->fd >= 0) {
		err = textslice_close(ts);
		if (err)
			return err;
		ts->index++;
	}
	snprintf(path, sizeof(path), PROFDIR_HOST_DATA "/%s.slice_%u",
		 ts->name, ts->index);
	ts->size = 0;
	return fsutil_create_at(ts->dir, path, &ts->fd);
}

int textslice_write(struct textslice *ts, const void *buf, size_t len)
{
	int err;

	if (len > TEXTSLICE_MAX)
		return -EMSGSIZE;
	if (ts->fd < 0 || ts->size + len > TEXTSLICE_MAX) {
		err = next_slice(ts);
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

	if (ts->fd < 0)
		return 0;
	if (fsync(ts->fd))
		err = -errno;
	if (close(ts->fd) && !err)
		err = -errno;
	ts->fd = -1;
	return err;
}
