// SPDX-License-Identifier: MIT
/*
 * The in-task profiling agent's entry: started by the runtime (or by
 * LD_PRELOAD) when msprof launched the task, it starts the socket server
 * (server.c), which drives the device backends (devices.c), and stops it
 * when the task exits.
 */
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "msprof/agent.h"
#include "msprof/probe_packs.h"
#include "devices.h"
#include "log.h"
#include "server.h"

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

/* A probe pack's runtime library makes a process an AI task worth serving. */
static int find_runtime(struct dl_phdr_info *info, size_t size, void *found)
{
	(void)size;
	if (msprof_probe_pack_is_runtime(info->dlpi_name))
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
