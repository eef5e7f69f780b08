/* SPDX-License-Identifier: MIT */
/*
 * What the CUPTI backend keeps of one window: the device activities and the
 * API calls that launched them, joined by correlation id when written.
 * Needs CUPTI's headers (MSPROF_HAVE_CUPTI), not its library.
 */
#ifndef MSPROF_AGENT_CUPTI_WINDOW_H
#define MSPROF_AGENT_CUPTI_WINDOW_H

#include <cupti.h>

#include "devdata.h"

#pragma GCC visibility push(hidden)

/* Kernel names, each copied once: a window repeats few of them many times. */
struct name_set {
	char **v;		/* open addressing; NULL = free */
	size_t cap;		/* a power of two, or 0 */
	size_t nr;
};

/* Not locked: the backend serialises CUPTI's callbacks and its flush. */
struct cupti_window {
	struct rec_buf tasks;	/* struct cupti_task */
	struct rec_buf apis;	/* struct cupti_api */
	struct name_set names;
	uint64_t lost;		/* activities untimed or unnamed (full: tasks.lost) */
	uint64_t dropped;	/* records CUPTI itself dropped */
};

void cupti_window_init(struct cupti_window *w);
/* Keeps what a device task record will need of one activity record. */
void cupti_window_keep(struct cupti_window *w, const CUpti_Activity *act);
/*
 * Writes the window's tasks under dir, one device_<id>/data/task_time.data
 * per device, their times moved to CLOCK_MONOTONIC by subtracting offset
 * (CUPTI's clock minus CLOCK_MONOTONIC).  Counts in *unlinked the tasks
 * whose launching API call is unknown.  0 or -errno.
 */
int cupti_window_write(const struct cupti_window *w, uint64_t offset,
		       const char *dir, size_t *unlinked);
/* Frees everything; w is ready for a new window. */
void cupti_window_free(struct cupti_window *w);

#pragma GCC visibility pop

#endif
