/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_TEXTSLICE_H
#define MSPROF_TEXTSLICE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A host data file as msprof's collector writes it: <name>.slice_0,
 * .slice_1, ... in a PROF_ directory's host/data, each closed (and a new
 * one begun) when the next chunk would take it past TEXTSLICE_MAX bytes.
 * A chunk is written whole into one slice, so a sample never straddles two:
 * Huawei's analysis parses each slice on its own.
 */
#define TEXTSLICE_MAX	(2048u << 10)
#define TEXTSLICE_NAME	64

struct textslice {
	int dir;		/* the PROF_ directory, not ours to close */
	char name[TEXTSLICE_NAME];
	unsigned int index;	/* the slice now open */
	int fd;			/* -1: none open (yet, or released) */
	bool released;		/* the slice is closed, to be appended to again */
	size_t size;		/* bytes in it */
	unsigned long long bytes;	/* all slices together */
};

/*
 * Prepares name's slices in the PROF_ directory dir; nothing is created
 * before the first chunk.  -ENAMETOOLONG for a name that does not fit.
 */
int textslice_init(struct textslice *ts, int dir, const char *name);
/*
 * Appends len bytes (one whole chunk, at most TEXTSLICE_MAX) to the open
 * slice, or to a new one (made anew: never one that was there) when it
 * would not fit.  0 or -errno.
 */
int textslice_write(struct textslice *ts, const void *buf, size_t len);
/*
 * Syncs and closes the open slice: 0 or -errno.  A released one is only
 * forgotten: its writer syncs them all at once (syncfs).
 */
int textslice_close(struct textslice *ts);
/*
 * Closes the open slice without syncing it, so that a writer of many files
 * (one per process) keeps few descriptors: the next write appends to it
 * again, opened without following links.  0 or -errno.
 */
int textslice_release(struct textslice *ts);
/* Whether a chunk of len bytes written now would begin a new slice. */
bool textslice_starts_slice(const struct textslice *ts, size_t len);

#endif
