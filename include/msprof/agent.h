/* SPDX-License-Identifier: MIT */
/* What a runtime that carries the agent calls (npusim's aclInit does). */
#ifndef MSPROF_AGENT_H
#define MSPROF_AGENT_H

/*
 * Starts the agent's socket server when PROFILING_MODE=dynamic is set in the
 * environment; does nothing otherwise or when already started.  0 or -errno.
 */
int msprof_agent_start(void);

#endif
