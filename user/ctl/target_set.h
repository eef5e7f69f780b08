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
/*
 * A start's windows: each target's begun but for those that exited; one
 * that fails because it is gone is forgotten, any other failure ends the
 * loop and is returned (the start is then aborted).
 */
int target_set_begin_windows(struct target_set *ts);
/* A failed start's: every window begun is dropped, its directory gone. */
void target_set_abort_windows(struct target_set *ts);
/*
 * A stop's: each target's window ended with its losses wl[i]; then the
 * targets that exited are forgotten.  The first failure.
 */
int target_set_end_windows(struct target_set *ts,
			   const struct window_losses *wl);
/* launch_each_task's callback: a rank the launched app started. */
int target_set_adopt_rank(int pid, void *ts);
/*
 * Reads the ring buffer into the targets' files, up to the record of a
 * process a target started: 1 then (it waits for target_set_follow(), and
 * nothing more is read until it has been), 0 once all is read, or an
 * error.  Reading adopts, attaches and creates nothing.
 */
int target_set_read(struct target_set *ts);
/*
 * The process that target_set_read() stopped at becomes a target (in a
 * window, with one of its own at once: the kernel follows it from its
 * fork).
 */
void target_set_follow(struct target_set *ts);
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
