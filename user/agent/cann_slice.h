/* SPDX-License-Identifier: MIT */
/*
 * A runtime's raw files as it writes them: "<base>.slice_<k>", whole
 * records only, the next slice begun where the next record would pass
 * the size limit.
 */
#ifndef MSPROF_AGENT_CANN_SLICE_H
#define MSPROF_AGENT_CANN_SLICE_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* A slice's size a runtime's profiling rotates at (2 MiB). */
#define CANN_SLICE_BYTES	(2u << 20)

struct cann_slice {
	int dir;		/* the data directory, not owned */
	char base[128];
	uint64_t limit;
	unsigned int next;	/* k of the next slice */
	int fd;			/* the slice open now, or -1 */
	uint64_t size;		/* its bytes so far */
};

/*
 * CANN_SLICE_BYTES, or less as MSPROF_TEST_SLICE_BYTES says (a test knob:
 * at least 256, one additional record).
 */
uint64_t cann_slice_limit(void);
/* Nothing is created before the first record. 0 or -ENAMETOOLONG. */
int cann_slice_init(struct cann_slice *s, int dir, const char *base,
		    uint64_t limit);
/*
 * Appends n records of size bytes, none split across two slices (one
 * bigger than the limit gets a slice of its own).  0 or -errno.
 */
int cann_slice_put(struct cann_slice *s, const void *recs, size_t size,
		   size_t n);
/* 0, or the error closing the last slice met. */
int cann_slice_close(struct cann_slice *s);

#pragma GCC visibility pop

#endif
