// SPDX-License-Identifier: MIT
/*
 * Who is a target: checking and locking a task, connecting its agent,
 * adopting ranks and followed children, forgetting the ones that are gone.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "task/ctl_lock.h"
#include "task/dynsock.h"
#include "msprof/protocol.h"
#include "host/probes.h"
#include "task/procfs.h"
#include "session_int.h"

static int add_device_node(const char *path, void *tracer)
{
	int err = tracer_add_device(tracer, path);

	/* A node that is not a character device carries no driver ioctls. */
	return err == -ENOENT || err == -ENOTTY ? 0 : err;
}

int add_device_nodes(struct session *s, struct target *t)
{
	return probe_devices(t->host_pid, add_device_node, s->tracer);
}

static int say_gone(int pid, int err)
{
	if (err == -ESRCH) {
		ERR("no process with pid %d", pid);
		return err;
	}
	ERR("pid %d: %s", pid, strerror(-err));
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

void report_unprobed(const struct session *s, const struct target *t,
		     const bool *attached)
{
	const struct probe_set *ps = &s->probes;
	char lib[PATH_MAX];
	size_t i, n = 0;

	for (i = 0; i < ps->n; i++)
		n += attached[i];
	if (!n && ps->n)
		printf("msprof: pid %d maps no runtime library with functions to probe\n",
		       t->host_pid);
	/* A function the user named is worth a word wherever it is missing. */
	for (i = 0; i < ps->n; i++) {
		const struct probe *p = &ps->v[i];

		if (attached[i] || !p->lib)
			continue;
		if (probe_find_library(t->host_pid, p, lib, sizeof(lib)))
			ERR("--uprobe %s:%s: no library matching %s is mapped by pid %d",
			    p->lib, p->name, p->lib, t->host_pid);
		else
			ERR("--uprobe %s:%s: no function %s in any library matching %s that pid %d maps (first: %s)",
			    p->lib, p->name, p->name, p->lib, t->host_pid, lib);
	}
}

/*
 * Takes one task: a process msprof may profile, with an agent if
 * need_agent, and no other controller.
 */
int check_target(struct session *s, int pid, bool need_agent)
{
	struct target *t = &s->targets[s->ntargets];
	int holder, err;

	err = check_kind(pid);
	if (err)
		return err;
	err = target_init(t, pid);
	t->lock.fd = -1;
	if (err)
		return say_gone(pid, err);
	if (need_agent && access(t->sock_path, F_OK)) {
		ERR("pid %d has no profiling socket %s: start the task with PROFILING_MODE=dynamic in its environment, or use --host-only=on",
		    pid, t->sock_path);
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
	s->ntargets++;
	return 0;
}

void disconnect_target(struct target *t)
{
	int err = target_disconnect(t);

	if (err)
		ERR("pid %d: the staging directory %s is left in place: %s",
		    t->host_pid, t->task_stage, strerror(-err));
}

int connect_target(struct session *s, struct target *t)
{
	int err = tracer_add_target(s->tracer, t->host_pid);

	if (err) {
		ERR("pid %d: cannot filter for it in the kernel: %s", t->host_pid,
		    strerror(-err));
		return err;
	}
	/* A followed child may run no agent: its host side still counts. */
	if (s->host_only || access(t->sock_path, F_OK))
		return 0;
	err = target_connect(t, s->output, s->out_fd, &s->params);
	/* The reason a window's info.json gives for no device data. */
	if (err)
		t->device_status = err;
	if (err == -EAGAIN)
		ERR("pid %d: its profiling agent at %s accepted no connection within %d s: its queue is full (another client holds it, or the task is stopped)",
		    t->host_pid, t->sock_path, DYNSOCK_CONNECT_S);
	else if (err == -ETIMEDOUT)
		ERR("pid %d: its profiling agent at %s did not answer the parameters within %u s (another client holds it, or the task is stopped)",
		    t->host_pid, t->sock_path,
		    dynsock_reply_timeout_s(MSPROF_PARAMS_RSP));
	else if (t->stage_parent_refused)
		ERR("pid %d: its /tmp is neither sticky and writable by all nor its user's: no staging directory for its device data is made there",
		    t->host_pid);
	else if (err == -EILSEQ)
		ERR("pid %d: the staging directory %s holds '\"', '\\' or a control character, which a runtime's parameters cannot carry: not connected (choose another --output)",
		    t->host_pid, t->task_stage);
	else if (err == -EINVAL)
		ERR("pid %d: its profiling server at %s refused msprof's parameters: not connected",
		    t->host_pid, t->sock_path);
	else if (err == -ENOTSOCK)
		ERR("pid %d: %s is not a socket of the task's user (a link, or another user's): not connected",
		    t->host_pid, t->sock_path);
	else if (err)
		ERR("pid %d: cannot connect to its profiling agent at %s: %s",
		    t->host_pid, t->sock_path, strerror(-err));
	t->requests = 0;
	/* A followed process with an agent of its own is a task like any. */
	if (!err)
		t->followed = false;
	return err;
}

void announce(const struct target *t)
{
	if (t->ns_pid != t->host_pid)
		printf("msprof: attached to pid %d (pid %d in its namespace, %s)\n",
		       t->host_pid, t->ns_pid, t->comm);
	else
		printf("msprof: attached to pid %d (%s)\n", t->host_pid, t->comm);
}

/* Drops target i for good: its window ends, its filter, agent and lock go. */
void forget(struct session *s, int i)
{
	struct target *t = &s->targets[i];

	if (*t->dir)
		end_window(s, t, &(struct window_end){ 0 });
	tracer_remove_target(s->tracer, t->host_pid);
	disconnect_target(t);
	ctl_unlock(&t->lock);
	*t = s->targets[--s->ntargets];
}

/*
 * A task that joins after session_open: a rank the launched app started
 * (need_agent), or a process a target started (followed in the kernel from
 * its first instruction).  Inside a window it gets its own PROF_ directory
 * at once.
 */
int adopt(struct session *s, int pid, bool need_agent)
{
	struct target *t;
	int i, err;

	for (i = 0; i < s->ntargets; i++)
		if (s->targets[i].host_pid == pid)
			return 0;
	/* A helper that is already gone: nothing to say, nothing to keep. */
	if (!need_agent && !procfs_alive(pid)) {
		tracer_remove_target(s->tracer, pid);
		return -ESRCH;
	}
	if (s->ntargets == MSPROF_MAX_PIDS) {
		ERR("pid %d: already %d targets, not following it", pid, MSPROF_MAX_PIDS);
		tracer_remove_target(s->tracer, pid);
		return -ENOSPC;
	}
	err = check_target(s, pid, need_agent);
	if (err) {
		tracer_remove_target(s->tracer, pid);
		return err;
	}
	t = &s->targets[s->ntargets - 1];
	t->followed = !need_agent;
	err = connect_target(s, t);
	if (!err && !t->followed)
		announce(t);
	if (!err && s->collecting)
		err = begin_window(s, t);
	if (err) {
		forget(s, s->ntargets - 1);
		return err;
	}
	if (s->collecting)
		tell_agent(s, t, MSPROF_START_REQ);
	return 0;
}

int adopt_rank(int pid, void *s)
{
	adopt(s, pid, true);
	return 0;
}

int session_consume(struct session *s)
{
	struct collector *c = &s->collector;
	int pid, err;

	do {
		err = tracer_consume(s->tracer);
		pid = c->forked;
		c->forked = 0;
		if (pid)
			adopt(s, pid, false);
	} while (err == COLLECTOR_PAUSE);
	return err;
}

/*
 * A followed process that ended without a record is forgotten at once, so
 * a shell's stream of short helpers cannot fill the table.
 */
static bool forget_if_idle(struct session *s, int i)
{
	struct target *t = &s->targets[i];
	struct collector_sink *sink = collector_find(&s->collector, t->host_pid);

	if (!t->followed || (sink && (sink->api_events || sink->ioctl_events)))
		return false;
	forget(s, i);
	return true;
}

bool session_check_targets(struct session *s)
{
	int i, alive = 0;

	for (i = 0; i < s->ntargets; i++) {
		struct target *t = &s->targets[i];

		if (!t->exited && !procfs_alive(t->host_pid)) {
			if (forget_if_idle(s, i)) {
				i--;
				continue;
			}
			tracer_remove_target(s->tracer, t->host_pid);
			t->exited = true;
			printf("msprof: pid %d exited\n", t->host_pid);
			/* An agent flushes a running window as its task exits. */
			if (*t->dir && t->fd >= 0)
				target_collect_device_data(t);
			disconnect_target(t);
			t->device_status = -ESRCH;
		}
		alive += !t->exited;
	}
	check_agents(s);
	return alive > 0;
}
