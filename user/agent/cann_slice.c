// SPDX-License-Identifier: MIT
/* The slices of one raw file, rotated at a size limit. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cann_slice.h"
#include "common/fsutil.h"

#define SLICE_MIN_BYTES	256

uint64_t cann_slice_limit(void)
{
	const char *s = getenv("MSPROF_TEST_SLICE_BYTES");
	unsigned long long n;
	char *end;

	if (!s || !*s)
		return CANN_SLICE_BYTES;
	n = strtoull(s, &end, 10);
	if (*end || n >= CANN_SLICE_BYTES)
		return CANN_SLICE_BYTES;
	return n < SLICE_MIN_BYTES ? SLICE_MIN_BYTES : n;
}

int cann_slice_init(struct cann_slice *s, int dir, const char *base,
		    uint64_t limit)
{
	int n = snprintf(s->base, sizeof(s->base), "%s", base);

	s->dir = dir;
	s->limit = limit;
	s->next = 0;
	s->fd = -1;
	s->size = 0;
	return n < 0 || (size_t)n >= sizeof(s->base) ? -ENAMETOOLONG : 0;
}

static int write_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int slice_open(struct cann_slice *s)
{
	char name[sizeof(s->base) + 24];

	snprintf(name, sizeof(name), "%s.slice_%u", s->base, s->next++);
	s->size = 0;
	return fsutil_create_at(s->dir, name, &s->fd);
}

int cann_slice_close(struct cann_slice *s)
{
	int err = 0;

	if (s->fd >= 0 && close(s->fd))
		err = -errno;
	s->fd = -1;
	return err;
}

int cann_slice_put(struct cann_slice *s, const void *recs, size_t size,
		   size_t n)
{
	const char *p = recs;
	size_t fit;
	int err;

	while (n) {
		if (s->fd >= 0 && s->size + size > s->limit) {
			err = cann_slice_close(s);
			if (err)
				return err;
		}
		if (s->fd < 0) {
			err = slice_open(s);
			if (err)
				return err;
		}
		fit = (s->limit - s->size) / size;
		if (!fit)
			fit = 1;	/* a record bigger than a slice: alone */
		if (fit > n)
			fit = n;
		err = write_all(s->fd, p, fit * size);
		if (err)
			return err;
		s->size += fit * size;
		p += fit * size;
		n -= fit;
	}
	return 0;
}
