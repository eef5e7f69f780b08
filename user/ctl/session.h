/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_SESSION_H
#define MSPROF_SESSION_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/clock.h"
#include "host/collector.h"
#include "host/kfeatures.h"
#include "options.h"
#include "task/params.h"
#include "host/probes.h"
#include "task/profdir.h"
#include "task/target.h"
#include "host/tracer.h"

/* Everything one interactive msprof controls: its targets and windows. */
struct session {
	char output[PATH_MAX];		/* absolute, as the agents see it */
	int out_fd;			/* open on it: PROF_ dirs are made here */
	struct tracer *tracer;
	struct collector collector;
	struct target targets[MSPROF_MAX_PIDS];
	int ntargets;
	bool collecting;
	bool host_only;			/* no agents: eBPF data only */
	bool follow;			/* targets' new processes become targets */
	pid_t launched;			/* launch mode: the app msprof started */
	const char *home;		/* where launched ranks' sockets appear */
	struct probe_set probes;	/* what is probed; index = API id */
	struct params_switches params;	/* what the agents are asked for */
	unsigned int windows;		/* windows started so far */
	struct clock_pair start;
	uint64_t stats_at_start[MSPROF_STAT_MAX];
};

/*
 * Checks the targets, then creates output, loads the BPF side and connects
 * to every agent.  Prints what went wrong; nothing is left behind on error.
 */
int session_open(struct session *s, const struct msprof_opts *o,
		 const struct kfeatures *kf, const int *pids, int npids,
		 pid_t launched, const char *home);
int session_start(struct session *s);
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
/* session_quit(), then unloads everything. */
void session_close(struct session *s);
/* Prints the state, the window so far and each target. */
void session_status(struct session *s);
/* Drains the ring buffer into the targets' files; adopts new processes. */
int session_consume(struct session *s);
/* Notices targets that exited; false once none is left. */
bool session_check_targets(struct session *s);

#endif
