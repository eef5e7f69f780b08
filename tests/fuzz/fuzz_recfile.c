// SPDX-License-Identifier: MIT
/*
 * The raw data file reader: the input is a whole file.  It is read twice,
 * once in full and once stopping at the first record, and the two walks
 * must agree with each other and with what recfile.h promises.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "msprof/recfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct walk {
	size_t records;
	size_t stop_after;	/* 0: never */
	uint64_t sum;
};

static int visit(uint16_t type, const void *body, size_t len, void *ctx)
{
	const uint8_t *b = body;
	struct walk *w = ctx;
	size_t i;

	/* Visitors cast the body to their record structs. */
	if ((uintptr_t)body % 8 || len > UINT16_MAX)
		abort();
	/* Every byte the reader hands out must be readable. */
	for (i = 0; i < len; i++)
		w->sum += b[i];
	w->sum += type;
	if (++w->records == w->stop_after)
		return -ECANCELED;
	return 0;
}

/* The input as a file: a memfd, made once. */
static int file_of(void)
{
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("fuzz_recfile", MFD_CLOEXEC);
		if (fd < 0)
			abort();
	}
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct walk full = { 0 }, first = { .stop_after = 1 };
	struct msprof_file_header hdr;
	int fd, err;

	fd = file_of();
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();

	memset(&hdr, 0xa5, sizeof(hdr));
	err = recfile_read_fd(fd, &hdr, visit, &full, NULL);
	if (err > 0 || (!err && (memcmp(hdr.magic, MSPROF_REC_MAGIC,
					sizeof(hdr.magic)) ||
				 hdr.version != MSPROF_REC_VERSION)))
		abort();

	err = recfile_read_fd(fd, NULL, visit, &first, NULL);
	if (full.records ? err != -ECANCELED || first.records != 1 :
			   first.records != 0)
		abort();
	return 0;
}
