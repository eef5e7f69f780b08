/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PROFDIR_H
#define MSPROF_PROFDIR_H

#include <stddef.h>
#include <stdint.h>
#include "clock.h"

#define PROFDIR_HOST_DATA	"host/data"
#define PROFDIR_HOST_FILE	"host/data/host_trace.data"
#define PROFDIR_DEVICE_FILE	"data/task_time.data"	/* under device_<id>/ */
#define PROFDIR_INFO		"info.json"
#define PROFDIR_OUTPUT		"mindstudio_profiler_output"

/*
 * "PROF_<6-digit index>_<YYYYMMDDhhmmssmmm local>_<16 letters A-R>"; rnd
 * supplies the 16 random bytes.  -ENAMETOOLONG if len is too short.
 */
int profdir_name(char *buf, size_t len, unsigned int index, uint64_t real_ns,
		 const unsigned char rnd[16]);

struct profdir_summary {
	int host_pid;
	int ns_pid;
	const char *comm;
	unsigned int window;
	struct clock_pair start;
	struct clock_pair end;
	uint64_t api_events;
	uint64_t ioctl_events;
	uint64_t lost_events;	/* dropped by the kernel side, all targets */
	uint64_t unfinished;	/* calls and ioctls in flight at stop, all targets */
	int target_exited;
	const char *device_status;	/* what the agent said at stop */
	const char *incomplete_reason;	/* NULL: the window is complete */
};

/*
 * Makes PROF_... (named from s's window and start) in the directory out, its
 * host/data/, start_info, and info.json in state "collecting"; returns its
 * name and an fd on it, through which everything in it is made.  On error
 * nothing is left.
 */
int profdir_create(int out, const struct profdir_summary *s, char *name,
		   size_t len, int *dir);

/* Creates host/data/host_trace.data, new, for writing. */
int profdir_open_host_file(int dir, int *fd);

/*
 * Removes what profdir_create() made (name in out, open as dir) and the host
 * file: exactly those, so only an empty directory goes.  Closes dir.
 */
void profdir_discard(int out, const char *name, int dir);

/*
 * Writes end_info and replaces info.json atomically: "complete", or
 * "incomplete" with s's reason (or end_info's failure).  The data files are
 * synced first.  On error the "collecting" info.json may stay.
 */
int profdir_finish(int dir, const struct profdir_summary *s);

#endif
