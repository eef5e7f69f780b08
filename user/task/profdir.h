/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PROFDIR_H
#define MSPROF_PROFDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "common/clock.h"
#include "common/proflayout.h"
#include "params.h"

/* What the window's metadata says of it. */
struct profdir_summary {
	int host_pid;
	int ns_pid;		/* the task's own getpid(): info.json's pid */
	const char *comm;
	int rank_id;		/* RANK_ID or RANK of the task; -1: none */
	const struct params_switches *switches;
	const struct hostsys_conf *hostsys;	/* sample.json's host keys; NULL: none */
	unsigned int window;
	struct clock_pair start;
	uint64_t requested_real_ns;	/* "start at <when>": when; 0: none */
	uint64_t opened_real_ns;	/* collection began (gate open); 0: unknown */
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
 * Makes PROF_... (named from s's window, start and ns_pid) in the directory
 * out: PROFDIR_FACTS in state "collecting", then host/ with msprof's
 * metadata and host/data/.  Returns its name and an fd on it, through which
 * everything in it is made.  On error nothing is left.
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
 * Gives device_<device>/ of the PROF_ directory dir, unless it has an
 * info.json.<device> of its own (a real runtime's), msprof's device
 * metadata, built from host/'s: info.json.N, sample.json, start_info.N,
 * end_info.N (now), host_start.log.N, dev_start.log.N.  backend: "npusim"
 * or "cupti"; sw: what the task's runtime was sent (sample.json).
 */
int profdir_write_device_meta(int dir, unsigned int device, const char *backend,
			      const struct params_switches *sw);
/* The backend our agent named (agent_stats_<backend>.json) in dir. */
const char *profdir_device_backend(int dir);

/*
 * Writes host/end_info and replaces PROFDIR_FACTS atomically: "complete",
 * or "incomplete" with s's reason (or end_info's failure).  The data files
 * are synced first.  On error the "collecting" facts may stay.
 */
int profdir_finish(int dir, const struct profdir_summary *s);

#endif
