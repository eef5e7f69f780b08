// SPDX-License-Identifier: MIT
/*
 * The in-task profiling agent: started by the runtime (or by LD_PRELOAD)
 * when msprof launched the task, it serves msprof's socket and drives the
 * device backends.
 */
#include <errno.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msprof/agent.h"
#include "msprof/agent_backend.h"
#include "agent_int.h"
#include "common/fsutil.h"

static const struct msprof_backend *const agent_backends[] = {
	&msprof_backend_npusim,
	&msprof_backend_cupti,
};

#define NR_BACKENDS (sizeof(agent_backends) / sizeof(agent_backends[0]))

struct agent_devices {
	/* NULL until the backend's runtime has been found in the process. */
	void *state[NR_BACKENDS];
};

/*
 * A preloaded library is entered only through its constructor, destructor
 * and pthread_once, none of which can be handed a pointer: its state has to
 * be this one static instance.
 */
static struct msprof_agent {
	pthread_once_t once;
	int err;			/* outcome of the one start */
	struct agent_devices devs;
	struct agent_server srv;
} agent = {
	.once = PTHREAD_ONCE_INIT,
	.srv = { .fd = -1, .devs = &agent.devs },
};

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

	for (i = 0; i < NR_BACKENDS; i++) {
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
	for (i = 0; i < NR_BACKENDS; i++) {
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
	ret = mkdir_p(dir, 0755);
	if (ret) {
		agent_err("%s: %s", dir, strerror(-ret));
		return err ?: ret;
	}
	for (i = 0; i < NR_BACKENDS; i++) {
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

	for (i = 0; i < NR_BACKENDS; i++)
		if (devs->state[i])
			return true;
	return false;
}

struct agent_devices *agent_process_devices(void)
{
	return &agent.devs;
}

static void agent_init(void)
{
	agent.err = agent_server_start(&agent.srv);
}

int msprof_agent_start(void)
{
	const char *mode = getenv("PROFILING_MODE");

	if (!mode || strcmp(mode, "dynamic"))
		return 0;
	pthread_once(&agent.once, agent_init);
	return agent.err;
}

/* Libraries whose presence makes a process an AI task worth serving. */
static const char *const runtime_libs[] = {
	"libnpusim", "libascendcl", "libruntime", "libcudart", "libcuda.so",
};

static int find_runtime(struct dl_phdr_info *info, size_t size, void *found)
{
	size_t i;

	(void)size;
	for (i = 0; i < sizeof(runtime_libs) / sizeof(runtime_libs[0]); i++)
		if (strstr(info->dlpi_name, runtime_libs[i]))
			return *(bool *)found = true;
	return 0;
}

/*
 * A runtime that carries the agent calls msprof_agent_start() itself; only a
 * preloaded agent has to start on its own.  LD_PRELOAD reaches every child
 * of a wrapper script, so only processes that use an accelerator runtime
 * open a socket: the shell around the real task stays quiet.
 */
static void __attribute__((constructor)) agent_preloaded(void)
{
	const char *preload = getenv("LD_PRELOAD");
	bool found = false;
	int err;

	if (!preload || !strstr(preload, "libmsprof_agent"))
		return;
	dl_iterate_phdr(find_runtime, &found);
	if (!found)
		return;
	/* No caller to tell: say it here. */
	err = msprof_agent_start();
	if (err)
		agent_err("cannot serve msprof: %s", strerror(-err));
}

static void __attribute__((destructor)) agent_exit(void)
{
	agent_server_stop(&agent.srv);
}
