/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_SESSION_H
#define MSPROF_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "host/kfeatures.h"
#include "host/tracer.h"
#include "options.h"

/* Everything one interactive msprof controls: its targets and windows. */
struct session;

/*
 * Checks and locks the targets, loads the BPF side, opens the output and
 * connects every agent: *sp, for session_close().  Prints what went
 * wrong; nothing is left behind on error.
 */
int session_open(struct session **sp, const struct msprof_opts *o,
		 const struct kfeatures *kf, const int *pids, int npids,
		 pid_t launched, const char *home);
/*
 * requested_real_ns: the CLOCK_REALTIME instant a "start at" asked for,
 * recorded in the window beside the instant it opened; 0: a plain start.
 */
int session_start(struct session *s, uint64_t requested_real_ns);
int session_stop(struct session *s);
/*
 * The result lines msprof's own client prints (scripts written for it
 * look for them); msprof says its details after each.
 */
#define MSPROF_SAYS_START_SUCCESS "dynamic profiling start success......"
#define MSPROF_SAYS_ALREADY_STARTED "[WARNING] dynamic profiling already started......"
#define MSPROF_SAYS_START_FAILED "[ERROR] dynamic profiling start failed......"
#define MSPROF_SAYS_STOP_SUCCESS "dynamic profiling stop success......"
#define MSPROF_SAYS_NOT_STARTED "[WARNING] dynamic profiling has not started......"
#define MSPROF_SAYS_STOP_FAILED "[ERROR] dynamic profiling stop failed......"
#define MSPROF_SAYS_QUIT_SUCCESS "dynamic profiling quit success......"

/*
 * Stops a running window and tells the agents we quit, then lets them go:
 * 0, or the first failure (the reason is printed).  Idempotent.
 */
int session_quit(struct session *s);
/* session_quit(), then unloads everything and frees s. */
void session_close(struct session *s);
/* Whether a window runs; the number of windows started so far. */
bool session_collecting(const struct session *s);
unsigned int session_windows(const struct session *s);
/*
 * For poll(): readable when many host records wait (then
 * session_consume()); while a window runs, call session_consume() at least
 * every SESSION_CONSUME_MS too, for the few.
 */
#define SESSION_CONSUME_MS TRACER_CONSUME_MS
int session_fd(const struct session *s);
/*
 * Prints the state, the window so far and each target; it reads the ring
 * buffer first, and adopts, attaches and creates nothing.
 */
void session_status(struct session *s);
/*
 * Drains the ring buffer into the targets' files; a process a target
 * started joins as its fork record comes (target_set_follow).
 */
int session_consume(struct session *s);
/* Notices targets that exited; false once none is left. */
bool session_check_targets(struct session *s);

#endif
