/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_LAUNCH_H
#define MSPROF_LAUNCH_H

#include <signal.h>
#include <sys/types.h>

/*
 * Starts argv with PROFILING_MODE=dynamic, stdin from /dev/null (msprof's
 * stdin carries the commands) and sigmask as its signal mask.
 */
int launch_app(char *const *argv, const sigset_t *sigmask, pid_t *child);

/*
 * Waits for the agent socket of child or of one of its descendants to
 * appear in home, the way msprof finds the real task.  -ECHILD if child
 * exited first, -ETIMEDOUT after timeout_ms.
 */
int launch_find_task(pid_t child, const char *home, int timeout_ms,
		     int *task_pid);

#endif
