/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_TARGET_H
#define MSPROF_TARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent_socket.h"
#include "common/fsutil.h"
#include "ctl_lock.h"
#include "params.h"
#include "stage.h"
#include "stage_copy.h"

/*
 * One task under control: who it is, its agent (where, and the
 * connection), its stage, and its current window.
 */
struct target {
	/* Who the task is. */
	int host_pid;
	int ns_pid;		/* the pid the task sees itself as */
	char comm[16];
	int rank_id;		/* RANK_ID, else RANK, as its window began; -1 */
	bool own_mnt_ns;	/* a mount namespace other than msprof's */
	struct ctl_lock lock;	/* one controller per task */
	bool exited;
	uint64_t lost_at_exit;	/* its host records lost in the window, if exited */
	bool followed;		/* started by a target; kept only if it did something */

	/* Its agent. */
	struct agent_socket sock;
	int fd;			/* connection to the agent, -1 if none */
	unsigned int requests;	/* sent on this connection (the agent allows 100) */
	struct stage stage;	/* where the agent writes its device data */

	/* The current window (target_window_reset() begins one). */
	char dir[PATH_MAX];	/* the window's PROF_ directory, "" if none */
	int dir_fd;		/* open on it, -1 if none */
	struct stage_copy copied;	/* what it took from the stage */
	int device_err;		/* first failure taking its device data */
	int device_status;	/* the agent's answer to STOP_REQ, or -errno */
	bool server_ended;	/* its server ended the session inside the window */
};

/*
 * Looks the task up in /proc and finds its socket (sock; sock.err why it
 * could not be looked for: -ETIMEDOUT when its home did not answer);
 * -ESRCH if it does not exist, -ETIMEDOUT if its /proc entries did not
 * answer (procread.h).  Opens nothing it keeps, writes nothing.
 */
int target_init(struct target *t, int host_pid);
/*
 * Connects to the task's agent and hands it a new staging directory for
 * device data, owned by the task's user, as the result_dir of parameters
 * sw: in output (the path, and out open on it) when the task shares
 * msprof's mount namespace, else in the task's own /tmp.  -EILSEQ if the
 * staging path cannot be sent unescaped.
 */
int target_connect(struct target *t, const char *output, int out,
		   const struct params_switches *sw);
/*
 * Takes the stage's device data into the window's PROF_ directory
 * (stage_copy_take(), into copied; b is the window's budget, shared by
 * all its targets); the first failure is kept in device_err too.
 */
int target_collect_device_data(struct target *t, struct fsutil_budget *b);
/* A window begins: nothing taken, no failure, its server not ended. */
void target_window_reset(struct target *t);
/*
 * Closes the connection and removes the staging directory with its files;
 * what could not be removed (someone else's entry there) is left, and the
 * first failure returned.
 */
int target_disconnect(struct target *t);

#endif
