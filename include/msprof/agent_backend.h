/* SPDX-License-Identifier: MIT */
/*
 * The agent's device backends: each one knows one accelerator runtime and
 * turns what that runtime reports into device task records.  An opened
 * backend lives as long as the process: there is no close (the agent is
 * never unloaded, and at exit the runtime's threads may still call in).
 */
#ifndef MSPROF_AGENT_BACKEND_H
#define MSPROF_AGENT_BACKEND_H

struct msprof_backend {
	const char *name;
	/* 0 when this backend's runtime is in the process, -ENODEV if not. */
	int (*open)(void **state);
	int (*start)(void *state);
	int (*stop)(void *state);
	/*
	 * Writes what was collected since start under dir, one
	 * device_<id>/data/ per device, and forgets it.
	 */
	int (*flush)(void *state, const char *dir);
};

extern const struct msprof_backend msprof_backend_npusim;
extern const struct msprof_backend msprof_backend_cupti;

#endif
