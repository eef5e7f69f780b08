// SPDX-License-Identifier: MIT
/* A target's agent connection: requests, the per-connection limit, its end. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent_link.h"
#include "common/err.h"
#include "common/printable.h"
#include "common/testpoint.h"
#include "dynsock.h"
#include "msprof/protocol.h"

/* Warn when this many requests are left on an agent connection. */
#define MSPROF_LIMIT_WARN 10

int agent_link_connect(struct target *t, const struct agent_link_conf *c)
{
	char sock[PATH_MAX], stage[PATH_MAX];	/* as the lines below show them */
	int err;

	if (access(t->sock.path, F_OK))
		return 0;
	err = target_connect(t, c->output, c->out_fd, &c->params);
	if (err) {
		/* The reason a window's info.json gives for no device data. */
		t->device_status = err;
		printable_copy(sock, sizeof(sock), t->sock.path);
		printable_copy(stage, sizeof(stage), t->stage.task_path);
	}
	if (err == -EAGAIN)
		ERR("pid %d: its profiling agent at %s accepted no connection within %d s: its queue is full (another client holds it, or the task is stopped)",
		    t->host_pid, sock, DYNSOCK_CONNECT_S);
	else if (err == -ETIMEDOUT)
		ERR("pid %d: its profiling agent at %s did not answer the parameters within %u s (another client holds it, or the task is stopped)",
		    t->host_pid, sock,
		    dynsock_reply_timeout_s(MSPROF_PARAMS_RSP));
	else if (t->stage.parent_refused)
		ERR("pid %d: its /tmp is neither sticky and writable by all nor its user's: no staging directory for its device data is made there",
		    t->host_pid);
	else if (err == -EILSEQ)
		ERR("pid %d: the staging directory %s holds '\"', '\\' or a control character, which a runtime's parameters cannot carry: not connected (choose another --output)",
		    t->host_pid, stage);
	else if (err == -EINVAL)
		ERR("pid %d: its profiling server at %s refused msprof's parameters: not connected",
		    t->host_pid, sock);
	else if (err == -ENOTSOCK)
		ERR("pid %d: %s is not a socket of the task's user (a link, or another user's): not connected",
		    t->host_pid, sock);
	else if (err)
		ERR("pid %d: cannot connect to its profiling agent at %s: %s",
		    t->host_pid, sock, strerror(-err));
	t->requests = 0;
	return err;
}

void agent_link_disconnect(struct target *t)
{
	char stage[PATH_MAX];
	int err = target_disconnect(t);

	if (err)
		WARN("pid %d: the staging directory %s is left in place: %s",
		     t->host_pid,
		     printable_copy(stage, sizeof(stage), t->stage.task_path),
		     strerror(-err));
}

/*
 * The agent serves MSPROF_MAX_MSGS requests per connection, then drops it.
 * A window needs its START and STOP on one connection, so msprof
 * reconnects (the count restarts) before a START that would not fit, and
 * says so ahead of time.
 */
static void mind_request_limit(struct target *t,
			       const struct agent_link_conf *c, int type)
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
	agent_link_disconnect(t);
	testpoint("before-reconnect");
	if (!agent_link_connect(t, c) && t->fd >= 0)
		printf("msprof: pid %d: reconnected to its agent (request count restarted)\n",
		       t->host_pid);
}

/*
 * The agent's connection is gone in the middle of things: what it flushed
 * of a window as the connection ended is kept, and the reason why its
 * device side ends there.
 */
static void lose_agent(struct target *t, const struct agent_link_conf *c,
		       int why)
{
	if (*t->dir)
		target_collect_device_data(t, c->stage_budget);
	t->device_status = why;
	agent_link_disconnect(t);
}

/*
 * The task's server ended the session on its own (a real one does at the
 * 101st request, after 1800 s idle outside a window, or on a message it
 * does not know) and stopped its collection as it did.  A window running
 * loses its device side from there; the next start connects again.
 */
static void server_ended(struct target *t, const struct agent_link_conf *c,
			 int status, bool quitting)
{
	WARN("pid %d: the task's profiling server ended the session and stopped its collection%s%s%s",
	     t->host_pid, status == MSPROF_FAIL ? " (the stop failed)" : "",
	     *t->dir ? ": the window's device data ends here (marked incomplete)" : "",
	     quitting ? "" : "; msprof connects again at the next start");
	if (*t->dir)
		t->server_ended = true;
	lose_agent(t, c, -ESHUTDOWN);
}

/* What t's agent answered to a request of this type: kept, said, acted on. */
static int take_reply(struct target *t, const struct agent_link_conf *c,
		      int type, int err, int status)
{
	t->requests++;
	if (err == -ESHUTDOWN) {
		server_ended(t, c, status, type == MSPROF_QUIT_REQ);
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
			target_collect_device_data(t, c->stage_budget);
		agent_link_disconnect(t);
	}
	return err;
}

/* Up to DYNSOCK_BATCH targets of v, asked at once. */
static int request_batch(struct target *v, size_t n,
			 const struct agent_link_conf *c, int type)
{
	int fds[DYNSOCK_BATCH] = { 0 }, status[DYNSOCK_BATCH] = { 0 };
	int errs[DYNSOCK_BATCH];
	struct target *asked[DYNSOCK_BATCH];
	size_t i, m = 0;
	int err, first = 0;

	for (i = 0; i < n; i++) {
		struct target *t = &v[i];

		if (t->fd >= 0)
			mind_request_limit(t, c, type);
		if (t->fd >= 0) {
			asked[m] = t;
			fds[m++] = t->fd;
		} else if (type == MSPROF_STOP_REQ && t->device_status >= 0) {
			/* Why there is no connection was kept when it went. */
			t->device_status = -ENOTCONN;
		}
	}
	dynsock_request_all(fds, m, type, status, errs);
	for (i = 0; i < m; i++) {
		err = take_reply(asked[i], c, type, errs[i], status[i]);
		if (err && !first)
			first = err;
	}
	return first;
}

int agent_link_request_all(struct target *v, size_t n,
			   const struct agent_link_conf *c, int type)
{
	size_t i, k;
	int err, first = 0;

	for (i = 0; i < n; i += k) {
		k = n - i < DYNSOCK_BATCH ? n - i : DYNSOCK_BATCH;
		err = request_batch(v + i, k, c, type);
		if (err && !first)
			first = err;
	}
	return first;
}

void agent_link_check_ended(struct target *t, const struct agent_link_conf *c)
{
	int status, err;

	if (t->fd < 0)
		return;
	err = dynsock_check_ended(t->fd, &status);
	/*
	 * A close alone is left to the next request, or to the exit check:
	 * an exiting task's agent closes first and flushes its window after.
	 */
	if (err == -ESHUTDOWN) {
		server_ended(t, c, status, false);
	} else if (err && err != -ECONNRESET) {
		ERR("pid %d: its profiling agent %s: disconnected",
		    t->host_pid,
		    err == -EPROTO ? "sent a message msprof did not ask for" :
		    strerror(-err));
		lose_agent(t, c, err);
	}
}

const char *agent_link_status_text(const struct target *t, bool host_only,
				   char *buf, size_t len)
{
	if (host_only)
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
