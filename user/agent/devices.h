/* SPDX-License-Identifier: MIT */
/*
 * The device backends the agent knows (include/msprof/agent_backend.h),
 * opened as their runtimes appear in the process and driven together, one
 * window at a time.
 */
#ifndef MSPROF_AGENT_DEVICES_H
#define MSPROF_AGENT_DEVICES_H

#include <stdbool.h>

#pragma GCC visibility push(hidden)

/* npusim and CUPTI: devices.c checks that its table has this many. */
#define AGENT_NR_BACKENDS 2

/* One process's backends; all zero: none opened yet. */
struct agent_devices {
	/* NULL until the backend's runtime has been found in the process. */
	void *state[AGENT_NR_BACKENDS];
};

/*
 * Opens the backends whose runtime is now in the process, then starts all
 * open ones; on failure none is left running.  0 or -errno.
 */
int agent_devices_start(struct agent_devices *devs);
/* Stops the running backends and flushes them into dir.  0 or -errno. */
int agent_devices_stop(struct agent_devices *devs, const char *dir);
/* Whether a backend's runtime has been found in the process. */
bool agent_devices_any(const struct agent_devices *devs);

#pragma GCC visibility pop

#endif
