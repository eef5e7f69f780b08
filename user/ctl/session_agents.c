// SPDX-License-Identifier: MIT
/* Requests to the targets' agents, within the agent's per-connection limit. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "task/dynsock.h"
#include "msprof/protocol.h"
#include "session_int.h"
#include "common/testpoint.h"

/* Warn when this many requests are left on an agent connection. */
#define MSPROF_LIMIT_WARN 10

/*
 * The agent serves MSPROF_MAX_MSGS requests per connection, then drops it.
 * A window needs its START and STOP on one connection, so msprof
 * reconnects (the count restarts) before a START that would not fit, and
 * says so ahead of time.
 */
static void mind_request_limit(struct session *s, struct target *t, int type)
{
	unsigned int left = MSPROF_MAX_MSGS - t->requests;

	if (left == MSPROF_LIMIT_WARN)
		printf("msprof: pid %d: %u of the agent's %d requests per connection used; msprof will reconnect before the limit, which restarts the count\n",
		       t->host_pid, t->requests, MSPROF_MAX_MSGS);
	if (type != MSPROF_START_REQ || left >= 3)
		return;
	/*
	 * Ended as a session ends: a real server counts no QUIT, and has
	 * its three replies read instead of written into a closed socket.
	 */
	dynsock_request(t->fd, MSPROF_QUIT_REQ, &(int){ 0 });
	disconnect_target(t);
	testpoint("before-reconnect");
	if (!connect_target(s, t))
		printf("msprof: pid %d: reconnected to its agent (request count restarted)\n",
		       t->host_pid);
}

/*
 * The agent's connection is gone in the middle of things: what it flushed
 * of a window as the connection ended is kept, and the reason why its
 * device side ends there.
 */
static void lose_agent(struct target *t, int why)
{
	if (*t->dir)
		target_collect_device_data(t);
	t->device_status = why;
	disconnect_target(t);
}

/*
 * The task's server ended the session on its own (a real one does at the
 * 101st request, after 1800 s idle outside a window, or on a message it
 * does not know) and stopped its collection as it did.  A window running
 * loses its device side from there; the next start connects again.
 */
static void server_ended(struct target *t, int status, bool quitting)
{
	ERR("pid %d: the task's profiling server ended the session and stopped its collection%s%s%s",
	    t->host_pid, status == MSPROF_FAIL ? " (the stop failed)" : "",
	    *t->dir ? ": the window's device data ends here (marked incomplete)" : "",
	    quitting ? "" : "; msprof connects again at the next start");
	if (*t->dir)
		t->server_ended = true;
	lose_agent(t, -ESHUTDOWN);
}

/* Sends one request to the target's agent, if it has one connected. */
int tell_agent(struct session *s, struct target *t, int type)
{
	int status, err;

	if (t->fd >= 0)
		mind_request_limit(s, t, type);
	if (t->fd < 0) {
		/* Why there is no connection was kept when it went. */
		if (type == MSPROF_STOP_REQ && t->device_status >= 0)
			t->device_status = -ENOTCONN;
		return 0;
	}
	err = dynsock_request(t->fd, type, &status);
	t->requests++;
	if (err == -ESHUTDOWN) {
		server_ended(t, status, type == MSPROF_QUIT_REQ);
		/* A QUIT wants no more than that. */
		return type == MSPROF_QUIT_REQ && status == MSPROF_SUCCESS ? 0 : err;
	}
	if (!err && status != MSPROF_SUCCESS)
		err = -EIO;
	if (type == MSPROF_STOP_REQ)
		t->device_status = err == -EIO ? status : err;
	else if (err && err != -EIO)
		t->device_status = err;
	if (err == -ETIMEDOUT)
		ERR("pid %d: the agent did not answer %s within %u s",
		    t->host_pid, msprof_msg_type_name(type),
		    dynsock_reply_timeout_s(type + 1));
	else if (err == -EIO)
		ERR("pid %d: the agent answered %s: %s", t->host_pid,
		    msprof_msg_type_name(type + 1),
		    msprof_msg_status_name(status));
	else if (err)
		ERR("pid %d: %s to the agent failed: %s", t->host_pid,
		    msprof_msg_type_name(type), strerror(-err));
	/*
	 * After a transport error a late answer may still come: the
	 * connection cannot be trusted.  The agent flushes what it collected
	 * when a connection ends, so keep that first.
	 */
	if (err && err != -EIO) {
		if (type == MSPROF_STOP_REQ && *t->dir)
			target_collect_device_data(t);
		disconnect_target(t);
	}
	return err;
}

void check_agents(struct session *s)
{
	int i, status, err;

	for (i = 0; i < s->ntargets; i++) {
		struct target *t = &s->targets[i];

		if (t->fd < 0)
			continue;
		err = dynsock_check_ended(t->fd, &status);
		/*
		 * A close alone is left to the next request, or to the exit
		 * check: an exiting task's agent closes first and flushes
		 * its window after.
		 */
		if (err == -ESHUTDOWN) {
			server_ended(t, status, false);
		} else if (err && err != -ECONNRESET) {
			ERR("pid %d: its profiling agent %s: disconnected",
			    t->host_pid,
			    err == -EPROTO ? "sent a message msprof did not ask for" :
			    strerror(-err));
			lose_agent(t, err);
		}
	}
}

/* Sends one request to every connected agent; returns the first failure. */
int tell_agents(struct session *s, int type)
{
	int i, err, first = 0;

	for (i = 0; i < s->ntargets; i++) {
		err = tell_agent(s, &s->targets[i], type);
		if (err && !first)
			first = err;
	}
	return first;
}

const char *device_status_text(const struct session *s, const struct target *t,
			       char *buf, size_t len)
{
	if (s->host_only)
		return "not collected (--host-only)";
	if (t->exited)
		return "the task exited: device data is what its agent flushed as it exited, if any";
	if (t->device_status >= 0)
		return msprof_msg_status_name(t->device_status);
	if (t->device_status == -ENOTCONN)
		return "not connected: the process has no profiling agent";
	if (t->device_status == -ESHUTDOWN)
		return "not connected: the task's profiling server ended the session and stopped its collection";
	snprintf(buf, len, "not connected: %s", strerror(-t->device_status));
	return buf;
}
