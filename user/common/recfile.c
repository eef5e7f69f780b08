// SPDX-License-Identifier: MIT
/* Writing and reading the length-prefixed raw data files. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "msprof/mstx.h"
#include "msprof/osrt.h"
#include "msprof/recfile.h"
#include "msprof/sched.h"
#include "safe_open.h"

struct recfile {
	FILE *fp;
	int err;
};

static void put(struct recfile *f, const void *buf, size_t len)
{
	if (!f->err && len && fwrite(buf, len, 1, f->fp) != 1)
		f->err = errno ? -errno : -EIO;
}

int recfile_fdopen(struct recfile **out, int fd)
{
	struct msprof_file_header hdr = {
		.version = MSPROF_REC_VERSION,
		.header_size = sizeof(hdr),
	};
	struct recfile *f = calloc(1, sizeof(*f));
	int err;

	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	f->fp = fdopen(fd, "wb");
	if (!f->fp) {
		err = -errno;
		close(fd);
		free(f);
		return err;
	}
	memcpy(hdr.magic, MSPROF_REC_MAGIC, sizeof(hdr.magic));
	hdr.mono_ns = clock_ns(CLOCK_MONOTONIC);
	hdr.real_ns = clock_ns(CLOCK_REALTIME);
	put(f, &hdr, sizeof(hdr));
	if (f->err) {
		err = f->err;
		fclose(f->fp);
		free(f);
		return err;
	}
	*out = f;
	return 0;
}

int recfile_create(struct recfile **out, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

	if (fd < 0)
		return -errno;
	return recfile_fdopen(out, fd);
}

int recfile_append(struct recfile *f, uint16_t type, const void *head,
		   size_t head_len, const void *tail, size_t tail_len)
{
	struct msprof_rec_hdr rh = { .type = type };

	/* Each alone first: their sum may wrap. */
	if (head_len > UINT16_MAX || tail_len > UINT16_MAX - head_len)
		return -EMSGSIZE;
	rh.size = (uint16_t)(head_len + tail_len);
	put(f, &rh, sizeof(rh));
	put(f, head, head_len);
	put(f, tail, tail_len);
	return f->err;
}

int recfile_close(struct recfile *f)
{
	int err;

	if (!f)
		return 0;
	err = f->err;
	if (fclose(f->fp) && !err)
		err = -errno;
	free(f);
	return err;
}

/* Buffered reads of a file whose size is known. */
struct reader {
	int fd;
	uint64_t off;		/* file offset of buf[pos] */
	uint64_t size;		/* where reading ends */
	size_t pos, len;
	unsigned char buf[1 << 17];
};

/* Copies n bytes at the reader's offset to dst; -EBADMSG at the end. */
static int take(struct reader *r, void *dst, size_t n)
{
	unsigned char *d = dst;

	while (n) {
		size_t k;

		if (r->pos == r->len) {
			ssize_t got = read(r->fd, r->buf, sizeof(r->buf));

			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0)
				return -errno;
			if (!got)	/* shrunk since fstat() */
				return -EBADMSG;
			r->pos = 0;
			r->len = (size_t)got;
		}
		k = r->len - r->pos < n ? r->len - r->pos : n;
		memcpy(d, r->buf + r->pos, k);
		r->pos += k;
		r->off += k;
		d += k;
		n -= k;
	}
	return 0;
}

static int stopped(struct recfile_stop *stop, int err, uint64_t off,
		   uint64_t size, const struct msprof_rec_hdr *rh)
{
	if (stop) {
		stop->offset = off;
		stop->left = size - off;
		stop->need = rh ? sizeof(*rh) + rh->size : sizeof(*rh);
		stop->type = rh ? rh->type : 0;
	}
	return err;
}

/* The header is whole, ours, and no longer than the file. */
static int read_header(struct reader *r, struct msprof_file_header *h)
{
	unsigned char skip[64];
	uint64_t extra;
	int err;

	if (r->size < sizeof(*h) || take(r, h, sizeof(*h)) ||
	    memcmp(h->magic, MSPROF_REC_MAGIC, sizeof(h->magic)) ||
	    h->version != MSPROF_REC_VERSION || h->header_size < sizeof(*h) ||
	    h->header_size > r->size)
		return -EPROTO;
	/* A newer writer's longer header: skip what we do not know. */
	extra = h->header_size - sizeof(*h);
	while (extra) {
		size_t n = extra < sizeof(skip) ? extra : sizeof(skip);

		err = take(r, skip, n);
		if (err)
			return err == -EBADMSG ? -EPROTO : err;
		extra -= n;
	}
	return 0;
}

/* Whether a writer could have made a record of this type and size. */
static bool record_ok(uint16_t type, uint16_t size)
{
	switch (type) {
	case MSPROF_REC_NAME:
		return size > sizeof(struct msprof_name_rec) &&
		       size <= sizeof(struct msprof_name_rec) + MSPROF_REC_NAMES_MAX;
	case MSPROF_REC_API:
		return size == sizeof(struct msprof_api_event);
	case MSPROF_REC_IOCTL:
		return size >= sizeof(struct msprof_ioctl_event) &&
		       size <= sizeof(struct msprof_ioctl_payload_event);
	case MSPROF_REC_DEVTASK:
		return size > sizeof(struct msprof_devtask_rec) &&
		       size <= sizeof(struct msprof_devtask_rec) +
			       MSPROF_REC_TASK_NAME_MAX;
	case MSPROF_REC_SCHED:
		return size == sizeof(struct msprof_sched_event);
	case MSPROF_REC_MSTX:
		return size >= MSPROF_MSTX_HEAD &&
		       size < sizeof(struct msprof_mstx_event);
	case MSPROF_REC_OSRT:
		/* A call's record is the largest: a name's is shorter. */
		return size >= sizeof(struct msprof_osrt_sysname) &&
		       size <= sizeof(struct msprof_osrt_event);
	case MSPROF_REC_PYSTACK:
		return size >= MSPROF_PYSTACK_HEAD + sizeof(struct msprof_py_frame) &&
		       size <= sizeof(struct msprof_pystack_event) &&
		       (size - MSPROF_PYSTACK_HEAD) % sizeof(struct msprof_py_frame) == 0;
	case MSPROF_REC_PYCODE:
		return size >= sizeof(struct msprof_pycode_rec) &&
		       size <= sizeof(struct msprof_pycode_rec) +
			       2 * MSPROF_PYCODE_NAME_MAX + MSPROF_PYCODE_TABLE_MAX;
	}
	return type && type < MSPROF_REC_TYPE_END;
}

int recfile_read_fd(int fd, struct msprof_file_header *hdr,
		    recfile_visit_fn visit, void *ctx, struct recfile_stop *stop)
{
	/* Aligned so visitors may cast the body to their record struct. */
	union {
		uint64_t align;
		unsigned char bytes[UINT16_MAX + 1 + 128];
	} *body;
	struct msprof_file_header h;
	struct msprof_rec_hdr rh;
	struct reader *r;
	struct stat st;
	uint64_t at;
	int err;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	if (lseek(fd, 0, SEEK_SET))
		return -errno;
	r = malloc(sizeof(*r));
	body = malloc(sizeof(*body));
	if (!r || !body) {
		err = -ENOMEM;
		goto out;
	}
	r->fd = fd;
	r->off = 0;
	r->size = (uint64_t)st.st_size;
	r->pos = r->len = 0;
	err = read_header(r, &h);
	if (err) {
		err = stopped(stop, err, 0, r->size, NULL);
		goto out;
	}
	if (hdr)
		*hdr = h;
	while (r->off < r->size) {
		at = r->off;
		if (r->size - at < sizeof(rh)) {
			err = stopped(stop, -EBADMSG, at, r->size, NULL);
			break;
		}
		rh.type = 0;
		rh.size = 0;
		err = take(r, &rh, sizeof(rh));
		if (!err && !record_ok(rh.type, rh.size))
			err = -EILSEQ;
		if (!err && rh.size > r->size - r->off)
			err = -EBADMSG;
		if (!err && rh.size)
			err = take(r, body->bytes, rh.size);
		if (!err) {
			/* NULs after the body: a name read as a string ends. */
			memset(body->bytes + rh.size, 0, 128);
			err = visit(rh.type, body->bytes, rh.size, ctx);
		}
		if (err) {
			stopped(stop, err, at, r->size, &rh);
			break;
		}
	}
out:
	free(body);
	free(r);
	return err;
}

void recfile_strerror(char *buf, size_t len, int err,
		      const struct recfile_stop *stop)
{
	if (err == -EPROTO)
		snprintf(buf, len, "offset 0: not a msprof data file (bad header)");
	else if (err == -EBADMSG)
		snprintf(buf, len, "offset %llu: record of %llu bytes runs past the end of the file (%llu bytes left)",
			 (unsigned long long)stop->offset,
			 (unsigned long long)stop->need,
			 (unsigned long long)stop->left);
	else if (err == -EILSEQ)
		snprintf(buf, len, "offset %llu: corrupt record (type %u, %llu bytes)",
			 (unsigned long long)stop->offset, stop->type,
			 (unsigned long long)stop->need);
	else
		snprintf(buf, len, "%s", safe_open_strerror(err));
}
