/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_STAGE_COPY_H
#define MSPROF_STAGE_COPY_H

#include <stdbool.h>
#include <stddef.h>

#include "common/fsutil.h"
#include "stage.h"

/* More device directories in a window than this are not taken. */
#define STAGE_COPY_MAX_DEVICES 64
/*
 * Bytes copied from the stages in one window, all its targets together:
 * what the tasks can make root write does not grow with their number.  A
 * runtime's device data for a window is tens to hundreds of MiB a rank; 4
 * GiB leaves room for a long window of a node's ranks.
 */
#define STAGE_COPY_MAX_BYTES (4ull << 30)

/* Why staged entries were left out of a window (left_why). */
enum {
	STAGE_LEFT_BUDGET = 1 << 0,	/* the window's STAGE_COPY_MAX_BYTES */
	STAGE_LEFT_RESERVE = 1 << 1,	/* the output's free-space reserve */
	STAGE_LEFT_FILES = 1 << 2,	/* more files than a runtime writes */
	STAGE_LEFT_FILE_BYTES = 1 << 3,	/* a file larger than a runtime's */
	STAGE_LEFT_DEVICES = 1 << 4,	/* past STAGE_COPY_MAX_DEVICES */
};

/* What a window took from a task's stage. */
struct stage_copy {
	unsigned int ignored;	/* entries not taken */
	/*
	 * Entries a runtime writes left out at a cap (a file, or a device
	 * directory past STAGE_COPY_MAX_DEVICES), and which caps
	 * (STAGE_LEFT_*): the window is incomplete then.
	 */
	unsigned int left_out;
	unsigned int left_why;
	/*
	 * The device_<N>/ directories taken, and whether each brought its
	 * runtime's own info.json.<N>: only those without one need metadata
	 * of msprof's making.
	 */
	struct stage_device {
		unsigned int id;
		bool has_info;
	} devices[STAGE_COPY_MAX_DEVICES];
	unsigned int ndevices;
};

/* Nothing taken yet: a window begins. */
void stage_copy_reset(struct stage_copy *c);
/*
 * Copies what the runtime (or our agent) wrote in the window's PROF_
 * directory inside the stage s, the files a runtime writes and nothing
 * else, into the PROF_ directory open as to, lists the device directories
 * taken in c->devices, then empties the stage.  What it copies counts in
 * b, the window's budget shared by all its targets.  Entries it does not
 * take are counted in c->ignored; entries left out at a cap (b, the
 * output's free-space reserve, the files and device directories a runtime
 * writes) in c->left_out and c->left_why.  Nothing without a stage or a
 * PROF_ directory.
 */
int stage_copy_take(struct stage_copy *c, const struct stage *s, int to,
		    struct fsutil_budget *b);
/*
 * The caps of c->left_why as a list ("past the window's 4 GiB copy
 * budget, past 65536 files"), into buf; b is the window's budget.
 */
const char *stage_copy_left_text(const struct stage_copy *c,
				 const struct fsutil_budget *b, char *buf,
				 size_t len);

#endif
