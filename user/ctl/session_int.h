/* SPDX-License-Identifier: MIT */
/* What the session's files share: session.c, session_targets.c, session_agents.c. */
#ifndef MSPROF_SESSION_INT_H
#define MSPROF_SESSION_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "session.h"

#define ERR(fmt, ...) fprintf(stderr, "msprof: " fmt "\n", ##__VA_ARGS__)

/* What a window's end knows of all its targets together. */
struct window_end {
	uint64_t lost;		/* records the kernel could not reserve */
	uint64_t unfinished;	/* calls and ioctls cut by the stop */
};

/* session.c: a target's part of a window. */
int begin_window(struct session *s, struct target *t);
int end_window(struct session *s, struct target *t, const struct window_end *we);

/* session_targets.c: who is a target. */
int check_target(struct session *s, int pid, bool need_agent);
int connect_target(struct session *s, struct target *t);
/* Ends t's agent connection; a staging directory left behind is said. */
void disconnect_target(struct target *t);
void announce(const struct target *t);
int add_device_nodes(struct session *s, struct target *t);
/* Says what a target was not probed for: attached[] from the tracer. */
void report_unprobed(const struct session *s, const struct target *t,
		     const bool *attached);
void forget(struct session *s, int i);
int adopt(struct session *s, int pid, bool need_agent);
int adopt_rank(int pid, void *s);

/* session_agents.c: requests to the targets' agents. */
int tell_agent(struct session *s, struct target *t, int type);
int tell_agents(struct session *s, int type);
/*
 * Notices agents whose server ended the session on its own between
 * requests: says so and lets them go (the next start reconnects).
 */
void check_agents(struct session *s);
/* What the window's info.json says of its device side. */
const char *device_status_text(const struct session *s, const struct target *t,
			       char *buf, size_t len);

#endif
