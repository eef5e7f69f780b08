/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_SYSFILE_H
#define MSPROF_SYSFILE_H

/*
 * One host data file of a window (host_cpu.data, 1234-Memory.data, ...):
 * msprof's slices (common/textslice.h), written from a buffer of whole
 * samples, within the target's byte budget and the output's free-space
 * reserve (fsutil_room).  The first failure stops the file: it is kept in
 * err and nothing more is written.
 */
#include <stdbool.h>
#include <stddef.h>

#include "common/fsutil.h"
#include "common/textslice.h"

struct sysfile {
	struct textslice ts;
	char *buf;		/* whole samples not written yet */
	size_t len, cap;	/* cap 0: every sample written at once */
	bool release;		/* the descriptor let go after each write */
	unsigned int index;	/* samples put (a usage block's Index) */
	int err;
};

/*
 * Prepares name in the PROF_ directory dir, buffering cap bytes (0: none);
 * release: keeps no descriptor between writes.  Nothing is created yet.
 */
int sysfile_init(struct sysfile *f, int dir, const char *name, size_t cap,
		 bool release);
/* Whether len bytes put now would begin a new slice (a disk file's start). */
bool sysfile_starts_slice(const struct sysfile *f, size_t len);
/*
 * Puts one sample's text (at most TEXTSLICE_MAX bytes), written now or
 * when the buffer is full; b is the budget of the target's files.
 */
int sysfile_put(struct sysfile *f, const char *text, size_t len,
		struct fsutil_budget *b);
/* Writes what is buffered: 0, or the file's first failure. */
int sysfile_flush(struct sysfile *f, struct fsutil_budget *b);
/* Writes what is buffered and frees the buffer until the next put. */
int sysfile_idle(struct sysfile *f, struct fsutil_budget *b);
/* Writes what is buffered and closes the file; its first failure. */
int sysfile_close(struct sysfile *f, struct fsutil_budget *b);
/* Removes every slice written (a window dropped): nothing stays. */
void sysfile_discard(struct sysfile *f);
/* The bytes written. */
static inline unsigned long long sysfile_bytes(const struct sysfile *f)
{
	return f->ts.bytes;
}

#endif
