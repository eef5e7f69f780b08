/* SPDX-License-Identifier: MIT */
/* How every part of the agent speaks to the task's stderr. */
#ifndef MSPROF_AGENT_LOG_H
#define MSPROF_AGENT_LOG_H

#include <stdio.h>

/* The task's own output must stay clean: one line, errors only. */
#define agent_err(fmt, ...) \
	fprintf(stderr, "msprof-agent: " fmt "\n", ##__VA_ARGS__)

#endif
