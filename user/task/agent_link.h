/* SPDX-License-Identifier: MIT */
/*
 * A target's connection to its agent: connecting (again), requests within
 * the agent's per-connection limit, noticing a server that ended the
 * session, and what that leaves of the window's device side.  What goes
 * wrong is said here, once.
 */
#ifndef MSPROF_AGENT_LINK_H
#define MSPROF_AGENT_LINK_H

#include <limits.h>
#include <stddef.h>

#include "params.h"
#include "target.h"

/* What every agent is handed: where its device data goes, what to collect. */
struct agent_link_conf {
	char output[PATH_MAX];	/* absolute, as the agents see it */
	int out_fd;		/* open on it: PROF_ dirs are made here */
	struct params_switches params;
	/* The window's copy budget, all targets' (agent_link_take_device_data). */
	struct fsutil_budget *stage_budget;
};

/*
 * Connects t's agent, if its socket is there (a followed child may run no
 * agent: 0 then, not connected).  The failure is said and kept in
 * t->device_status, the reason a window's info.json gives.
 */
int agent_link_connect(struct target *t, const struct agent_link_conf *c);
/* Ends t's agent connection; a staging directory left behind is said. */
void agent_link_disconnect(struct target *t);
/*
 * Sends one request to the agent of each of the n targets of v that has
 * one connected, first reconnecting (c) one whose limit would cut a
 * START; all are asked at once and answer by one deadline.  What went
 * wrong is said per target; the first error is returned.
 */
int agent_link_request_all(struct target *v, size_t n,
			   const struct agent_link_conf *c, int type);
/*
 * Notices an agent whose server ended the session on its own between
 * requests: says so and lets it go (the next start reconnects).
 */
void agent_link_check_ended(struct target *t, const struct agent_link_conf *c);
/*
 * What t's agent flushed into its stage, copied into the window's PROF_
 * directory within the window's budget (none: nothing to do): the one
 * place device data is copied from, at the stop and as an agent goes.
 */
void agent_link_take_device_data(struct target *t,
				 const struct agent_link_conf *c);
/*
 * t's agent is gone in the middle of things (its task exited, its server
 * ended the session, the connection broke): what it flushed of a window
 * is kept, why in device_status (the window's device side ends there),
 * and the connection let go.
 */
void agent_link_lose(struct target *t, const struct agent_link_conf *c,
		     int why);
/* What the window's info.json says of t's device side. */
const char *agent_link_status_text(const struct target *t, bool host_only,
				   char *buf, size_t len);

#endif
