// SPDX-License-Identifier: MIT
/*
 * The session's set of targets: checking and locking a task, connecting
 * its agent, adopting ranks and followed children, forgetting the ones
 * that are gone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/printable.h"
#include "msprof/protocol.h"
#include "options.h"
#include "target_set.h"
#include "task/ctl_lock.h"
#include "proc/procfs.h"
#include "proc/procread.h"

int target_set_init(struct target_set *ts, struct window_ctx *w)
{
	ts->v = calloc(MSPROF_MAX_PIDS, sizeof(*ts->v));
	ts->n = 0;
	ts->w = w;
	return ts->v ? 0 : -ENOMEM;
}

void target_set_free(struct target_set *ts)
{
	int i;

	for (i = 0; i < ts->n; i++)
		ctl_unlock(&ts->v[i].lock);
	free(ts->v);
	ts->v = NULL;
	ts->n = 0;
}

static int say_gone(int pid, int err)
{
	if (err == -ESRCH) {
		ERR("no process with pid %d", pid);
		return err;
	}
	ERR("pid %d: %s", pid, procread_strerror(err));
	return err;
}

/* Ids that name no process msprof can profile, each refused with why. */
static int check_kind(int pid)
{
	char comm[16] = "";
	bool yes;
	int tgid, err;

	err = procfs_is_host_init(pid, &yes);
	if (!err && yes) {
		ERR("pid %d is the host's init: profiling init is not supported",
		    pid);
		return -EPERM;
	}
	if (!err)
		err = procfs_is_kthread(pid, &yes);
	if (!err && yes) {
		procfs_comm(pid, comm, sizeof(comm));
		ERR("pid %d (%s) is a kernel thread: only user processes can be profiled",
		    pid, comm);
		return -EPERM;
	}
	if (!err)
		err = procfs_tgid(pid, &tgid);
	if (!err && tgid != pid) {
		ERR("pid %d is a thread of process %d: give the process id", pid, tgid);
		return -EPERM;
	}
	if (err == -ENOENT)	/* no /proc entry */
		err = -ESRCH;
	return err ? say_gone(pid, err) : 0;
}

int target_set_take(struct target_set *ts, int pid, bool need_agent)
{
	struct target *t = &ts->v[ts->n];
	int holder, err;

	if (ts->n == MSPROF_MAX_PIDS) {
		ERR("pid %d: already %d targets, not following it", pid, MSPROF_MAX_PIDS);
		return -ENOSPC;
	}
	err = check_kind(pid);
	if (err)
		return err;
	err = target_init(t, pid);
	t->lock.fd = -1;
	/* --host-only needs no socket, nor the home it would be in. */
	if (!err && need_agent)
		err = t->sock.err;
	if (err)
		return say_gone(pid, err);
	if (need_agent && !t->sock.found) {
		char shown[PATH_MAX];

		ERR("pid %d has no profiling socket %s: start the task with PROFILING_MODE=dynamic in its environment, or use --host-only=on",
		    pid, printable_copy(shown, sizeof(shown), t->sock.path));
		return -ENOENT;
	}
	err = ctl_lock(&t->lock, t->host_pid, t->ns_pid, &holder);
	if (err == -EBUSY) {
		if (holder > 0)
			ERR("pid %d is already being profiled by msprof pid %d: one controller per task",
			    pid, holder);
		else	/* it has not written its pid yet */
			ERR("pid %d is already being profiled by another msprof: one controller per task",
			    pid);
		return err;
	}
	if (err == -EPERM) {
		ERR("pid %d: %s or the lock file in it is not root's alone (a directory owned by root, writable by root only): refusing to use it",
		    pid, CTL_LOCK_DIR);
		return err;
	}
	if (err) {
		ERR("pid %d: cannot take its controller lock in %s: %s", pid,
		    CTL_LOCK_DIR, strerror(-err));
		return err;
	}
	ts->n++;
	return 0;
}

/* Filters for t in the kernel; connects its agent unless --host-only. */
static int connect_target(struct target_set *ts, struct target *t)
{
	int err = ts->w->host->filter(ts->w->tracer, t->host_pid);

	if (err) {
		ERR("pid %d: cannot filter for it in the kernel: %s", t->host_pid,
		    strerror(-err));
		return err;
	}
	if (ts->w->host_only)
		return 0;
	err = agent_link_connect(t, &ts->w->link);
	/* A followed process with an agent of its own is a task like any. */
	if (!err && t->fd >= 0)
		t->followed = false;
	return err;
}

static void announce(const struct target *t)
{
	char comm[sizeof(t->comm)];

	printable_copy(comm, sizeof(comm), t->comm);
	if (t->ns_pid != t->host_pid)
		printf("msprof: attached to pid %d (pid %d in its namespace, %s)\n",
		       t->host_pid, t->ns_pid, comm);
	else
		printf("msprof: attached to pid %d (%s)\n", t->host_pid, comm);
}

int target_set_connect_all(struct target_set *ts)
{
	int i, err = 0;

	for (i = 0; !err && i < ts->n; i++) {
		err = connect_target(ts, &ts->v[i]);
		if (!err)
			announce(&ts->v[i]);
	}
	return err;
}

/*
 * The kernel filter needs no second look: a target loses it only when it
 * exits (skipped here) or leaves the table.
 */
void target_set_reconnect(struct target_set *ts)
{
	int i;

	if (ts->w->host_only)
		return;
	for (i = 0; i < ts->n; i++) {
		struct target *t = &ts->v[i];

		if (t->fd < 0 && !t->exited &&
		    !agent_link_connect(t, &ts->w->link) && t->fd >= 0) {
			t->followed = false;
			printf("msprof: pid %d: reconnected to its agent\n", t->host_pid);
		}
	}
}

/* unfilter: the pid is no process msprof follows any more. */
static void forget(struct target_set *ts, int i, bool unfilter)
{
	struct target *t = &ts->v[i];

	if (*t->dir)
		window_end(ts->w, t, &(struct window_losses){ 0 });
	if (unfilter)
		ts->w->host->unfilter(ts->w->tracer, t->host_pid);
	agent_link_disconnect(t);
	ctl_unlock(&t->lock);
	*t = ts->v[--ts->n];
}

void target_set_forget(struct target_set *ts, int i)
{
	forget(ts, i, true);
}

int target_set_begin_windows(struct target_set *ts)
{
	int i, err = 0;

	for (i = 0; !err && i < ts->n; i++) {
		struct target *t = &ts->v[i];

		if (t->exited)
			continue;
		err = window_begin(ts->w, t);
		/* One that exited since the last look is no reason to fail. */
		if (err && !procfs_alive(t->host_pid)) {
			target_set_forget(ts, i--);
			err = 0;
		}
	}
	return err;
}

void target_set_abort_windows(struct target_set *ts)
{
	int i;

	for (i = 0; i < ts->n; i++)
		if (ts->v[i].dir_fd >= 0)
			window_abort(ts->w, &ts->v[i]);
}

int target_set_end_windows(struct target_set *ts,
			   const struct window_losses *wl)
{
	int i, err, first = 0;

	for (i = 0; i < ts->n; i++) {
		if (!*ts->v[i].dir)
			continue;
		err = window_end(ts->w, &ts->v[i], &wl[i]);
		if (err && !first)
			first = err;
	}
	/* Exited targets are done: their slots serve new ones. */
	for (i = 0; i < ts->n; i++)
		if (ts->v[i].exited)
			target_set_forget(ts, i--);
	return first;
}

/*
 * A task that joins after the session opened: a rank the launched app
 * started (need_agent), or a process a target started (followed in the
 * kernel from its first instruction).  Inside a window it gets its own
 * PROF_ directory at once.
 */
static int adopt(struct target_set *ts, int pid, bool need_agent)
{
	struct window_ctx *w = ts->w;
	struct target *t;
	int i, err;

	for (i = 0; i < ts->n; i++) {
		if (ts->v[i].host_pid != pid)
			continue;
		if (!ts->v[i].exited)
			return 0;
		/*
		 * Its pid was reused: the new process, in the kernel's filter
		 * since its fork, gets a window of its own.
		 */
		forget(ts, i, false);
		break;
	}
	/* A helper that is already gone: nothing to say, nothing to keep. */
	if (!need_agent && !procfs_alive(pid)) {
		w->host->unfilter(w->tracer, pid);
		return -ESRCH;
	}
	err = target_set_take(ts, pid, need_agent);
	if (err) {
		w->host->unfilter(w->tracer, pid);
		return err;
	}
	t = &ts->v[ts->n - 1];
	t->followed = !need_agent;
	err = connect_target(ts, t);
	if (!err && !t->followed)
		announce(t);
	if (!err && w->collecting)
		err = window_begin(w, t);
	if (err) {
		target_set_forget(ts, ts->n - 1);
		return err;
	}
	if (w->collecting)
		agent_link_request_all(t, 1, &w->link, MSPROF_START_REQ);
	return 0;
}

int target_set_adopt_rank(int pid, void *ts)
{
	adopt(ts, pid, true);
	return 0;
}

int target_set_read(struct target_set *ts)
{
	struct collector *c = &ts->w->collector;
	int err;

	/* The new process's records come next: they wait for its file. */
	if (c->forked)
		return 1;
	err = ts->w->host->consume(ts->w->tracer);
	collector_flush(c);
	return err == COLLECTOR_PAUSE ? 1 : err;
}

void target_set_follow(struct target_set *ts)
{
	struct collector *c = &ts->w->collector;
	int pid = c->forked;

	c->forked = 0;
	if (pid)
		adopt(ts, pid, false);
}

/*
 * A followed process that ended without a record is forgotten at once, so
 * a shell's stream of short helpers cannot fill the table.
 */
static bool forget_if_idle(struct target_set *ts, int i)
{
	struct target *t = &ts->v[i];
	struct collector_sink *sink = collector_find(&ts->w->collector,
						     t->host_pid);

	if (!t->followed || (sink && (sink->api_events || sink->ioctl_events)))
		return false;
	target_set_forget(ts, i);
	return true;
}

bool target_set_notice_exits(struct target_set *ts)
{
	int i, alive = 0;

	for (i = 0; i < ts->n; i++) {
		struct target *t = &ts->v[i];

		if (!t->exited && !procfs_alive(t->host_pid)) {
			if (forget_if_idle(ts, i)) {
				i--;
				continue;
			}
			ts->w->host->lost(ts->w->tracer, t->host_pid,
					   &t->lost_at_exit);
			ts->w->host->unfilter(ts->w->tracer, t->host_pid);
			t->exited = true;
			printf("msprof: pid %d exited\n", t->host_pid);
			/* An agent flushes a running window as its task exits. */
			agent_link_lose(t, &ts->w->link, -ESRCH);
		}
		alive += !t->exited;
	}
	target_set_drop_ended_agents(ts);
	return alive > 0;
}

int target_set_request(struct target_set *ts, int type)
{
	return agent_link_request_all(ts->v, (size_t)ts->n, &ts->w->link, type);
}

void target_set_drop_ended_agents(struct target_set *ts)
{
	int i;

	for (i = 0; i < ts->n; i++)
		agent_link_check_ended(&ts->v[i], &ts->w->link);
}

void target_set_disconnect(struct target_set *ts)
{
	int i;

	for (i = 0; i < ts->n; i++)
		agent_link_disconnect(&ts->v[i]);
}
