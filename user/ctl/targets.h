/* SPDX-License-Identifier: MIT */
/*
 * The tasks under control: checking and locking one, connecting it,
 * adopting ranks and followed children, noticing exits, forgetting the
 * ones that are gone.  A target that joins or goes inside a window has its
 * window begun or ended here.
 */
#ifndef MSPROF_TARGETS_H
#define MSPROF_TARGETS_H

#include <stdbool.h>

#include "window.h"

struct targets {
	struct target *v;	/* MSPROF_MAX_PIDS of them */
	int n;
	struct window_ctx *w;	/* the windows they join */
};

/* An empty table for the windows of w. */
int targets_init(struct targets *ts, struct window_ctx *w);
/* Lets every target's controller lock go and frees the table. */
void targets_free(struct targets *ts);
/*
 * Takes one task: a process msprof may profile, with an agent if
 * need_agent, and no other controller.  Says why not.
 */
int targets_take(struct targets *ts, int pid, bool need_agent);
/* Filters for every target in the kernel and connects its agent. */
int targets_connect_all(struct targets *ts);
/* Connects again the agents lost earlier (a timeout, a restart). */
void targets_reconnect(struct targets *ts);
/* Drops target i for good: its window ends, its filter, agent and lock go. */
void targets_forget(struct targets *ts, int i);
/* launch_each_task's callback: a rank the launched app started. */
int targets_adopt_rank(int pid, void *ts);
/* Drains the ring buffer into the targets' files; adopts new processes. */
int targets_consume(struct targets *ts);
/* Notices targets that exited; false once none is left. */
bool targets_notice_exits(struct targets *ts);
/*
 * Sends one request to every connected agent, all at once; returns the
 * first failure.
 */
int targets_request(struct targets *ts, int type);
/* Lets go the agents whose server ended the session between requests. */
void targets_drop_ended_agents(struct targets *ts);
/* Ends every agent connection. */
void targets_disconnect(struct targets *ts);

#endif
