/* SPDX-License-Identifier: MIT */
/*
 * The session's set of targets, the tasks under control: checking and
 * locking one, connecting it, adopting ranks and followed children,
 * noticing exits, forgetting the ones that are gone.  A target that joins
 * or goes inside a window has its window begun or ended here.
 */
#ifndef MSPROF_TARGET_SET_H
#define MSPROF_TARGET_SET_H

#include <stdbool.h>

#include "window.h"

struct target_set {
	struct target *v;	/* MSPROF_MAX_PIDS of them */
	int n;
	struct window_ctx *w;	/* the windows they join */
};

/* An empty table for the windows of w. */
int target_set_init(struct target_set *ts, struct window_ctx *w);
/* Lets every target's controller lock go and frees the table. */
void target_set_free(struct target_set *ts);
/*
 * Takes one task: a process msprof may profile, with an agent if
 * need_agent, and no other controller.  Says why not.
 */
int target_set_take(struct target_set *ts, int pid, bool need_agent);
/* Filters for every target in the kernel and connects its agent. */
int target_set_connect_all(struct target_set *ts);
/* Connects again the agents lost earlier (a timeout, a restart). */
void target_set_reconnect(struct target_set *ts);
/* Drops target i for good: its window ends, its filter, agent and lock go. */
void target_set_forget(struct target_set *ts, int i);
/* launch_each_task's callback: a rank the launched app started. */
int target_set_adopt_rank(int pid, void *ts);
/* Drains the ring buffer into the targets' files; adopts new processes. */
int target_set_consume(struct target_set *ts);
/* Notices targets that exited; false once none is left. */
bool target_set_notice_exits(struct target_set *ts);
/*
 * Sends one request to every connected agent, all at once; returns the
 * first failure.
 */
int target_set_request(struct target_set *ts, int type);
/* Lets go the agents whose server ended the session between requests. */
void target_set_drop_ended_agents(struct target_set *ts);
/* Ends every agent connection. */
void target_set_disconnect(struct target_set *ts);

#endif
