// SPDX-License-Identifier: MIT
/*
 * The agent's device backends, driven together: a window starts every
 * backend whose runtime the process has loaded, and its end stops them all
 * before any of them spends time writing.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "msprof/agent_backend.h"
#include "common/fsutil.h"
#include "devices.h"
#include "log.h"

static const struct msprof_backend *const agent_backends[] = {
	&msprof_backend_npusim,
	&msprof_backend_cupti,
};

_Static_assert(sizeof(agent_backends) / sizeof(agent_backends[0]) ==
	       AGENT_NR_BACKENDS, "AGENT_NR_BACKENDS is the table's size");

/* Logs a backend's failure once; returns err. */
static int backend_err(const struct msprof_backend *be, const char *op, int err)
{
	if (err)
		agent_err("%s: %s: %s", be->name, op, strerror(-err));
	return err;
}

int agent_devices_start(struct agent_devices *devs)
{
	size_t i;
	int err;

	for (i = 0; i < AGENT_NR_BACKENDS; i++) {
		const struct msprof_backend *be = agent_backends[i];

		/* A runtime may be dlopen()ed long after the agent started. */
		if (!devs->state[i]) {
			err = be->open(&devs->state[i]);
			if (err != -ENODEV)
				backend_err(be, "open", err);
			if (err)
				continue;
		}
		err = backend_err(be, "start", be->start(devs->state[i]));
		if (err)
			goto undo;
	}
	return 0;
undo:
	while (i--) {
		if (devs->state[i])
			agent_backends[i]->stop(devs->state[i]);
	}
	return err;
}

int agent_devices_stop(struct agent_devices *devs, const char *dir)
{
	const struct msprof_backend *be;
	bool any = false;
	int err = 0, ret;
	size_t i;

	/* Every backend's window ends before the first one spends time writing. */
	for (i = 0; i < AGENT_NR_BACKENDS; i++) {
		be = agent_backends[i];
		if (!devs->state[i])
			continue;
		any = true;
		ret = backend_err(be, "stop", be->stop(devs->state[i]));
		err = err ?: ret;
	}
	/* A task without an accelerator runtime leaves no trace in dir. */
	if (!any)
		return 0;
	ret = fsutil_mkdir_p(dir, 0755);
	if (ret) {
		agent_err("%s: %s", dir, strerror(-ret));
		return err ?: ret;
	}
	for (i = 0; i < AGENT_NR_BACKENDS; i++) {
		be = agent_backends[i];
		if (!devs->state[i])
			continue;
		ret = backend_err(be, "flush", be->flush(devs->state[i], dir));
		err = err ?: ret;
	}
	return err;
}

bool agent_devices_any(const struct agent_devices *devs)
{
	size_t i;

	for (i = 0; i < AGENT_NR_BACKENDS; i++)
		if (devs->state[i])
			return true;
	return false;
}
