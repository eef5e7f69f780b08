// SPDX-License-Identifier: MIT
/* Writing and reading the length-prefixed raw data files. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "msprof/recfile.h"

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

	if (head_len + tail_len > UINT16_MAX)
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

int recfile_read(const char *path, struct msprof_file_header *hdr,
		 recfile_visit_fn visit, void *ctx)
{
	/* Aligned so visitors may cast the body to their record struct. */
	union {
		uint64_t align;
		unsigned char bytes[UINT16_MAX + 1 + 64];
	} *body;
	struct msprof_file_header h;
	struct msprof_rec_hdr rh;
	FILE *fp;
	int err = 0;

	fp = fopen(path, "rbe");
	if (!fp)
		return -errno;
	body = malloc(sizeof(*body));
	if (!body) {
		fclose(fp);
		return -ENOMEM;
	}
	if (fread(&h, sizeof(h), 1, fp) != 1 ||
	    memcmp(h.magic, MSPROF_REC_MAGIC, sizeof(h.magic)) ||
	    h.version != MSPROF_REC_VERSION || h.header_size < sizeof(h) ||
	    fseek(fp, h.header_size, SEEK_SET)) {
		err = -EPROTO;
		goto out;
	}
	if (hdr)
		*hdr = h;
	while (fread(&rh, sizeof(rh), 1, fp) == 1) {
		if (rh.size && fread(body->bytes, rh.size, 1, fp) != 1)
			break;	/* cut short by a crash: keep what was whole */
		/* Zero the tail so short old records read as zero fields. */
		memset(body->bytes + rh.size, 0, 64);
		err = visit(rh.type, body->bytes, rh.size, ctx);
		if (err)
			break;
	}
out:
	free(body);
	fclose(fp);
	return err;
}
