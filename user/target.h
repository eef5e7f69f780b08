/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_TARGET_H
#define MSPROF_TARGET_H

#include <limits.h>
#include <stdbool.h>

#include "ctl_lock.h"

/* One task under control: how to reach it and its current window. */
struct target {
	int host_pid;
	int ns_pid;		/* the pid the task sees itself as */
	char comm[16];
	bool own_mnt_ns;	/* a mount namespace other than msprof's */
	char sock_path[PATH_MAX];	/* as msprof reaches it */
	/*
	 * The staging directory for device data, one directory under two
	 * names: stage is set once msprof made it.
	 */
	char stage[PATH_MAX];		/* as msprof reaches it */
	char task_stage[PATH_MAX];	/* as the task's agent writes to it */
	int stage_parent_fd;	/* the directory holding it, -1 if none */
	int fd;			/* connection to the agent, -1 if none */
	unsigned int requests;	/* sent on this connection (the agent allows 100) */
	struct ctl_lock lock;	/* one controller per task */
	bool exited;
	bool followed;		/* started by a target; kept only if it did something */
	char dir[PATH_MAX];	/* the window's PROF_ directory, "" if none */
	int device_status;	/* the agent's answer to STOP_REQ, or -errno */
};

/* Looks the task up in /proc; -ESRCH if it does not exist. */
int target_init(struct target *t, int host_pid);
/*
 * Connects to the task's agent and hands it the staging directory for
 * device data, owned by the task's user: under output when the task shares
 * msprof's mount namespace, else in the task's own /tmp.
 */
int target_connect(struct target *t, const char *output);
/* Moves what the agent flushed into the window's PROF_ directory. */
int target_collect_device_data(struct target *t);
/* Closes the connection and removes the staging directory with its files. */
void target_disconnect(struct target *t);

#endif
