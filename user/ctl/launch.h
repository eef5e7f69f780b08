/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_LAUNCH_H
#define MSPROF_LAUNCH_H

#include <signal.h>
#include <sys/types.h>

/*
 * Starts argv with PROFILING_MODE=dynamic and agent preloaded,
 * stdin from /dev/null (msprof's stdin carries the commands) and sigmask as
 * its signal mask.
 */
int launch_app(char *const *argv, const char *agent, const sigset_t *sigmask,
	       pid_t *child);

/*
 * Calls fn for each task that root or a descendant of it runs with an
 * agent socket in home; a non-zero return from fn ends the walk with it.
 */
typedef int (*launch_task_fn)(int pid, void *ctx);
int launch_each_task(pid_t root, const char *home, launch_task_fn fn,
		     void *ctx);

/*
 * Waits for the agent socket of child or of one of its descendants to
 * appear in home, the way msprof finds the real task.  -ECHILD if child
 * exited first, -ETIMEDOUT after timeout_ms.
 */
int launch_find_task(pid_t child, const char *home, int timeout_ms,
		     int *task_pid);

#endif
