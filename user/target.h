/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_TARGET_H
#define MSPROF_TARGET_H

#include <limits.h>
#include <stdbool.h>

/* One task under control: how to reach it and its current window. */
struct target {
	int host_pid;
	int ns_pid;		/* the pid the task sees itself as */
	char comm[16];
	char sock_path[PATH_MAX];	/* as msprof reaches it */
	char stage[PATH_MAX];	/* where the agent flushes device data */
	int fd;			/* connection to the agent, -1 if none */
	bool exited;
	char dir[PATH_MAX];	/* the window's PROF_ directory, "" if none */
	int device_status;	/* the agent's answer to STOP_REQ, or -errno */
};

/* Looks the task up in /proc; -ESRCH if it does not exist. */
int target_init(struct target *t, int host_pid);
/*
 * Connects to the task's agent and hands it the staging directory for
 * device data, which is created (owned by the task's user) under output.
 */
int target_connect(struct target *t, const char *output);
/* Moves what the agent flushed into the window's PROF_ directory. */
int target_collect_device_data(struct target *t);
void target_disconnect(struct target *t);

#endif
