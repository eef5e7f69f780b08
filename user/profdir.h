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

/*
 * Creates <output>/PROF_.../host/data/ and writes start_info; the path is
 * returned in dir.
 */
int profdir_create(const char *output, unsigned int index,
		   const struct clock_pair *start, char *dir, size_t len);

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
};

/*
 * Removes a directory profdir_create() made whose host file holds no
 * records (a followed process that did nothing): exactly those files.
 */
int profdir_discard(const char *dir);

/* Writes end_info and info.json, the marks of a finished directory. */
int profdir_finish(const char *dir, const struct profdir_summary *s);

#endif
