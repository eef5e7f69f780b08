/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_OSRT_SINK_H
#define MSPROF_OSRT_SINK_H

/*
 * One target's --host-sys=osrt records of a window: each kept in its host
 * file (with a name record before a syscall number's first), and written
 * as msprof writes them: a perf trace line in host_syscall.data for every
 * syscall (its driver ioctls too), an ltrace line in host_pthreadcall.data
 * for each call of the four pthread functions msprof keeps.  The blocking
 * calls beyond msprof's are in the host file only.
 */
#include <stddef.h>
#include <stdint.h>

#include "common/clock.h"
#include "msprof/events.h"
#include "msprof/recfile.h"
#include "probes.h"

struct osrt_sink;

struct osrt_sink_conf {
	int dir;		/* the target's PROF_ directory (not ours to close) */
	uint32_t pid;		/* the task's pid as it sees itself (info.json's) */
	const char *comm;	/* the task's name */
	/* The window's start: start_info's, which the lines' times count from. */
	struct clock_pair start;
	const struct probe_set *ps;	/* the session's: names the pthread calls */
};

/* What a target's window recorded, for its stop line. */
struct osrt_counts {
	uint64_t syscalls;	/* its driver ioctls among them */
	uint64_t pthread_calls;	/* of the four msprof keeps */
	uint64_t blocking;	/* calls that waited --osrt-threshold or more */
	uint64_t threads;
};

/* Both files begun with their sentinel lines; nothing is written yet. */
int osrt_sink_open(struct osrt_sink **out, const struct osrt_sink_conf *c);
/* An MSPROF_EV_OSRT record of size bytes: into f and the lines. */
int osrt_sink_add(struct osrt_sink *s, struct recfile *f, const void *rec,
		  size_t size);
/* A driver's ioctl, which stands for its syscall: its line. */
int osrt_sink_ioctl(struct osrt_sink *s, const struct msprof_ioctl_event *e);
/* The lines still buffered written, the files closed, s freed: 0 or -errno. */
int osrt_sink_close(struct osrt_sink *s, struct osrt_counts *out);

#endif
