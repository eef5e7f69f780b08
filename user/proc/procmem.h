/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PROCMEM_H
#define MSPROF_PROCMEM_H

#include <stddef.h>
#include <stdint.h>

/*
 * A task's memory, read without stopping it.  The reads go through the
 * reader (procread.h): a page the task backs with a FUSE file whose daemon
 * never answers would hold a read for good.  Every byte read is the task's
 * and untrusted.
 */

/* Ranges one call reads (they travel in the reader's request). */
#define PROCMEM_MAX_RANGES 256
/* Bytes of one range. */
#define PROCMEM_MAX_RANGE (64u << 10)
/* Bytes of one call, all ranges together. */
#define PROCMEM_MAX_BYTES (2u << 20)

struct procmem_range {
	uint64_t addr;
	uint32_t len;		/* PROCMEM_MAX_RANGE at most */
	uint32_t pad;
};

/*
 * Reads n ranges of pid's memory into out, one after another (cap: the sum
 * of their lengths); ok[i] says whether range i was read whole (a range
 * that was not is zeroed).  0, -EINVAL for too many or too long ranges, or
 * the reader's error (procread_run).
 */
int procmem_read(int pid, const struct procmem_range *r, size_t n,
		 void *out, size_t cap, uint8_t *ok);

#endif
