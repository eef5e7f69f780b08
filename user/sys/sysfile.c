// SPDX-License-Identifier: MIT
/* A host data file written in whole samples, within the window's budget. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/proflayout.h"
#include "sysfile.h"

int sysfile_init(struct sysfile *f, int dir, const char *name, size_t cap,
		 bool release)
{
	memset(f, 0, sizeof(*f));
	f->cap = cap;
	f->release = release;
	return textslice_init(&f->ts, dir, name);
}

bool sysfile_starts_slice(const struct sysfile *f, size_t len)
{
	return textslice_starts_slice(&f->ts, f->len + len);
}

static int write_out(struct sysfile *f, const char *text, size_t len,
		     struct fsutil_budget *b)
{
	int err = fsutil_room(f->ts.dir, b, len);

	if (!err)
		err = textslice_write(&f->ts, text, len);
	if (!err) {
		b->used += len;
		if (f->release)
			err = textslice_release(&f->ts);
	}
	return err;
}

int sysfile_flush(struct sysfile *f, struct fsutil_budget *b)
{
	int err = 0;

	if (f->len && !f->err)
		err = write_out(f, f->buf, f->len, b);
	f->len = 0;
	if (err && !f->err)
		f->err = err;
	return err;
}

int sysfile_put(struct sysfile *f, const char *text, size_t len,
		struct fsutil_budget *b)
{
	if (f->err)
		return f->err;
	f->index++;
	/* A slice holds whole samples: a new one begins with the buffer's. */
	if (f->len && (f->len + len > f->cap ||
		       textslice_starts_slice(&f->ts, f->len + len)) &&
	    sysfile_flush(f, b))
		return f->err;
	if (len > f->cap) {
		f->err = write_out(f, text, len, b);
		return f->err;
	}
	if (!f->buf) {
		f->buf = malloc(f->cap);
		if (!f->buf)
			return f->err = -ENOMEM;
	}
	memcpy(f->buf + f->len, text, len);
	f->len += len;
	return 0;
}

int sysfile_idle(struct sysfile *f, struct fsutil_budget *b)
{
	sysfile_flush(f, b);
	free(f->buf);
	f->buf = NULL;
	return f->err;
}

int sysfile_close(struct sysfile *f, struct fsutil_budget *b)
{
	int err;

	sysfile_flush(f, b);
	err = textslice_close(&f->ts);
	if (err && !f->err)
		f->err = err;
	free(f->buf);
	f->buf = NULL;
	f->cap = 0;
	return f->err;
}

void sysfile_discard(struct sysfile *f)
{
	char path[sizeof(PROFDIR_HOST_DATA) + TEXTSLICE_NAME + 24];
	unsigned int i;

	textslice_close(&f->ts);
	free(f->buf);
	f->buf = NULL;
	f->len = 0;
	if (!f->ts.bytes)
		return;
	for (i = 0; i <= f->ts.index; i++) {
		snprintf(path, sizeof(path), PROFDIR_HOST_DATA "/%s.slice_%u",
			 f->ts.name, i);
		unlinkat(f->ts.dir, path, 0);
	}
}
