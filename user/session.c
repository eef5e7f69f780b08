// SPDX-License-Identifier: MIT
/* start and stop: what a window is made of, in the order it happens. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl_lock.h"
#include "dynsock.h"
#include "fsutil.h"
#include "launch.h"
#include "msprof/protocol.h"
#include "probes.h"
#include "procfs.h"
#include "profdir.h"
#include "session.h"

/* Warn when this many requests are left on an agent connection. */
#define MSPROF_LIMIT_WARN 10

#define ERR(fmt, ...) fprintf(stderr, "msprof: " fmt "\n", ##__VA_ARGS__)

/* The absolute path, so the agent resolves it the same. */
static int make_output(const char *dir, char *abs)
{
	int err = mkdir_p(dir, 0755);

	if (err)
		return err;
	if (!realpath(dir, abs))
		return -errno;
	return 0;
}

static int add_device_node(const char *path, void *tracer)
{
	int err = tracer_add_device(tracer, path);

	/* A node that is not a character device carries no driver ioctls. */
	return err == -ENOENT || err == -ENOTTY ? 0 : err;
}

static int add_device_nodes(struct session *s, struct target *t)
{
	return probe_devices(t->host_pid, add_device_node, s->tracer);
}

/* Takes one task: it must exist, have an agent if need_agent, be free. */
static int check_target(struct session *s, int pid, bool need_agent)
{
	struct target *t = &s->targets[s->ntargets];
	int holder, err;

	err = target_init(t, pid);
	t->lock.fd = -1;
	if (err == -ESRCH) {
		ERR("no process with pid %d", pid);
		return err;
	}
	if (err) {
		ERR("pid %d: %s", pid, strerror(-err));
		return err;
	}
	if (need_agent && access(t->sock_path, F_OK)) {
		ERR("pid %d has no profiling socket %s: start the task with PROFILING_MODE=dynamic in its environment, or use --host-only=on",
		    pid, t->sock_path);
		return -ENOENT;
	}
	err = ctl_lock(&t->lock, t->host_pid, t->ns_pid, &holder);
	if (err == -EBUSY) {
		ERR("pid %d is already being profiled by msprof pid %d: one controller per task",
		    pid, holder);
		return err;
	}
	if (err) {
		ERR("pid %d: cannot take its controller lock: %s", pid, strerror(-err));
		return err;
	}
	s->ntargets++;
	return 0;
}

static int connect_target(struct session *s, struct target *t)
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
	err = target_connect(t, s->output);
	if (err)
		ERR("pid %d: cannot connect to its profiling agent at %s: %s",
		    t->host_pid, t->sock_path, strerror(-err));
	t->requests = 0;
	/* A followed process with an agent of its own is a task like any. */
	if (!err)
		t->followed = false;
	return err;
}

static void announce(const struct target *t)
{
	if (t->ns_pid != t->host_pid)
		printf("msprof: attached to pid %d (pid %d in its namespace, %s)\n",
		       t->host_pid, t->ns_pid, t->comm);
	else
		printf("msprof: attached to pid %d (%s)\n", t->host_pid, t->comm);
}

int session_open(struct session *s, const struct msprof_opts *o,
		 const int *pids, int npids, pid_t launched, const char *home)
{
	struct target *t;
	char msg[256];
	int i, err = 0;

	memset(s, 0, sizeof(*s));
	s->host_only = o->host_only;
	err = probe_set_build(&s->probes, opts_layers(o), o->uprobes, msg,
			      sizeof(msg));
	if (err) {
		ERR("%s", err == -EINVAL ? msg : strerror(-err));
		return err;
	}
	s->follow = o->follow_children;
	s->launched = launched;
	s->home = home;
	for (i = 0; !err && i < npids; i++)
		err = check_target(s, pids[i], !s->host_only);
	/* Loaded before the output is made: a refusal must leave nothing. */
	if (!err) {
		struct tracer_config cfg = {
			.ringbuf_bytes = o->ringbuf_bytes,
			.ioctl_payload = o->ioctl_payload,
		};

		err = tracer_open(&s->tracer, &cfg, collector_on_event,
				  &s->collector);
		if (err)
			ERR("cannot load the BPF programs (need root or CAP_BPF+CAP_PERFMON, kernel with BTF): %s",
			    strerror(-err));
	}
	if (!err) {
		err = make_output(o->output, s->output);
		if (err)
			ERR("cannot use output directory %s: %s", o->output,
			    strerror(-err));
	}
	for (i = 0; !err && i < s->ntargets; i++) {
		t = &s->targets[i];
		err = connect_target(s, t);
		if (!err)
			announce(t);
	}
	if (err)
		session_close(s);
	return err;
}

static int begin_window(struct session *s, struct target *t)
{
	char path[PATH_MAX * 2];
	size_t probes;
	int err;

	/* A followed process may have become another program since. */
	if (t->followed)
		procfs_comm(t->host_pid, t->comm, sizeof(t->comm));
	/* Its runtime's device nodes, now that its libraries are mapped. */
	err = add_device_nodes(s, t);
	if (err) {
		ERR("pid %d: cannot filter its device nodes: %s", t->host_pid,
		    strerror(-err));
		return err;
	}
	err = profdir_create(s->output, s->windows, &s->start, t->dir,
			     sizeof(t->dir));
	if (err) {
		*t->dir = '\0';
		ERR("pid %d: cannot create a PROF_ directory in %s: %s",
		    t->host_pid, s->output, strerror(-err));
		return err;
	}
	snprintf(path, sizeof(path), "%s/%s", t->dir, PROFDIR_HOST_FILE);
	err = collector_open(&s->collector, t->host_pid, path, &s->probes);
	if (err) {
		ERR("cannot create %s: %s", path, strerror(-err));
		return err;
	}
	err = tracer_attach_target(s->tracer, t->host_pid, &s->probes, &probes);
	if (err) {
		ERR("pid %d: cannot attach probes: %s", t->host_pid, strerror(-err));
		return err;
	}
	if (!probes && s->probes.n && !t->followed)
		printf("msprof: pid %d maps no runtime library with functions to probe\n",
		       t->host_pid);
	return 0;
}

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
	target_disconnect(t);
	if (!connect_target(s, t))
		printf("msprof: pid %d: reconnected to its agent (request count restarted)\n",
		       t->host_pid);
}

/* Sends one request to the target's agent, if it has one connected. */
static int tell_agent(struct session *s, struct target *t, int type)
{
	int status, err;

	if (t->fd >= 0)
		mind_request_limit(s, t, type);
	if (t->fd < 0) {
		if (type == MSPROF_STOP_REQ)
			t->device_status = -ENOTCONN;
		return 0;
	}
	err = dynsock_request(t->fd, type, &status);
	t->requests++;
	if (!err && status != MSPROF_SUCCESS)
		err = -EIO;
	if (type == MSPROF_STOP_REQ)
		t->device_status = err ? err : status;
	if (err == -EIO)
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
		target_disconnect(t);
	}
	return err;
}

/* Sends one request to every connected agent; returns the first failure. */
static int tell_agents(struct session *s, int type)
{
	int i, err, first = 0;

	for (i = 0; i < s->ntargets; i++) {
		err = tell_agent(s, &s->targets[i], type);
		if (err && !first)
			first = err;
	}
	return first;
}

/* What a window's end knows of all its targets together. */
struct window_end {
	uint64_t lost;		/* records the kernel could not reserve */
	uint64_t unfinished;	/* calls and ioctls cut by the stop */
};

static int end_window(struct session *s, struct target *t,
		      const struct window_end *we);

/* Drops target i for good: its window ends, its filter, agent and lock go. */
static void forget(struct session *s, int i)
{
	struct target *t = &s->targets[i];

	if (*t->dir)
		end_window(s, t, &(struct window_end){ 0 });
	tracer_remove_target(s->tracer, t->host_pid);
	target_disconnect(t);
	ctl_unlock(&t->lock);
	*t = s->targets[--s->ntargets];
}

/*
 * A task that joins after session_open: a rank the launched app started
 * (need_agent), or a process a target started (followed in the kernel from
 * its first instruction).  Inside a window it gets its own PROF_ directory
 * at once.
 */
static int adopt(struct session *s, int pid, bool need_agent)
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

static int adopt_rank(int pid, void *s)
{
	adopt(s, pid, true);
	return 0;
}

int session_start(struct session *s)
{
	int i, err;

	if (s->collecting) {
		printf("msprof: collection is already running; type stop first\n");
		return 0;
	}
	/* Ranks the launched app started since: each with its own agent. */
	if (s->launched)
		launch_each_task(s->launched, s->home, adopt_rank, s);
	s->windows++;
	clock_pair_now(&s->start);
	err = tracer_stats(s->tracer, s->stats_at_start);
	s->collector.unattributed = 0;
	for (i = 0; !err && i < s->ntargets; i++) {
		struct target *t = &s->targets[i];

		if (t->exited)
			continue;
		err = begin_window(s, t);
		/* One that exited since the last look is no reason to fail. */
		if (err && !procfs_alive(t->host_pid)) {
			forget(s, i--);
			err = 0;
		}
	}
	if (!err)
		err = tracer_attach_syscalls(s->tracer, s->follow);
	if (!err)
		err = tracer_set_gate(s->tracer, true);
	s->collecting = true;
	if (err) {
		session_stop(s);
		return err;
	}
	/* An agent lost earlier (a timeout, a restart) gets another chance. */
	for (i = 0; i < s->ntargets; i++) {
		struct target *t = &s->targets[i];

		if (t->fd < 0 && !t->exited && !s->host_only &&
		    !connect_target(s, t) && t->fd >= 0)
			printf("msprof: pid %d: reconnected to its agent\n", t->host_pid);
	}
	/* Device collection failing still leaves a useful host window. */
	tell_agents(s, MSPROF_START_REQ);
	printf("msprof: collection started (window %u)\n", s->windows);
	return 0;
}

static int end_window(struct session *s, struct target *t,
		      const struct window_end *we)
{
	struct profdir_summary sum = {
		.host_pid = t->host_pid,
		.ns_pid = t->ns_pid,
		.comm = t->comm,
		.window = s->windows,
		.start = s->start,
		.lost_events = we->lost,
		.unfinished = we->unfinished,
		.target_exited = t->exited,
	};
	struct collector_sink sink = { 0 };
	int err, derr = 0;

	err = collector_close(&s->collector, t->host_pid, &sink);
	if (err)
		ERR("pid %d: host data incomplete: %s", t->host_pid, strerror(-err));
	if (t->followed && !sink.api_events && !sink.ioctl_events && !err) {
		/* A helper process (a shell's sleep) leaves no trace. */
		profdir_discard(t->dir);
		*t->dir = '\0';
		return 0;
	}
	if (t->device_status == MSPROF_SUCCESS && *t->stage)
		derr = target_collect_device_data(t);
	if (derr)
		ERR("pid %d: cannot move device data: %s", t->host_pid, strerror(-derr));
	sum.api_events = sink.api_events;
	sum.ioctl_events = sink.ioctl_events;
	if (s->host_only)
		sum.device_status = "not collected (--host-only)";
	else if (t->device_status < 0)
		sum.device_status = strerror(-t->device_status);
	else
		sum.device_status = msprof_msg_status_name(t->device_status);
	clock_pair_now(&sum.end);
	err = profdir_finish(t->dir, &sum);
	if (err) {
		ERR("cannot finish %s: %s", t->dir, strerror(-err));
		return err;
	}
	printf("msprof: %s: %llu API calls, %llu ioctls%s\n", t->dir,
	       (unsigned long long)sum.api_events,
	       (unsigned long long)sum.ioctl_events,
	       t->exited ? " (the task exited during the window)" : "");
	*t->dir = '\0';
	return 0;
}

int session_stop(struct session *s)
{
	uint64_t stats[MSPROF_STAT_MAX], ioctls = 0;
	struct window_end we = { 0 };
	int i, err, first = 0;

	if (!s->collecting) {
		printf("msprof: collection is not running; type start first\n");
		return 0;
	}
	tracer_set_gate(s->tracer, false);
	/* From here processes that targets start join for later windows. */
	s->collecting = false;
	tell_agents(s, MSPROF_STOP_REQ);
	/* Returns still in flight now are lost with the probes; few by design. */
	tracer_detach(s->tracer);
	err = session_consume(s);
	if (err)
		ERR("reading the ring buffer failed: %s", strerror(-err));
	if (!tracer_stats(s->tracer, stats))
		we.lost = stats[MSPROF_STAT_LOST] - s->stats_at_start[MSPROF_STAT_LOST];
	if (we.lost)
		ERR("warning: %llu host events were lost (ring buffer full)",
		    (unsigned long long)we.lost);
	if (!tracer_unfinished(s->tracer, &we.unfinished, &ioctls))
		we.unfinished += ioctls;
	if (we.unfinished)
		printf("msprof: %llu calls were still running at stop and are not in the window\n",
		       (unsigned long long)we.unfinished);
	if (s->collector.unattributed)
		ERR("warning: %llu host events of processes that joined as the window closed were not kept",
		    (unsigned long long)s->collector.unattributed);
	for (i = 0; i < s->ntargets; i++) {
		if (!*s->targets[i].dir)
			continue;
		err = end_window(s, &s->targets[i], &we);
		if (err && !first)
			first = err;
	}
	/* Exited targets are done: their slots serve new ones. */
	for (i = 0; i < s->ntargets; i++)
		if (s->targets[i].exited)
			forget(s, i--);
	printf("msprof: collection stopped (window %u)\n", s->windows);
	return first;
}

void session_close(struct session *s)
{
	struct target *t;
	int i;

	if (s->tracer) {
		/* What is still in the ring buffer decides what is kept. */
		session_consume(s);
		/* A task that is gone gets no goodbye, and no error about it. */
		session_check_targets(s);
		if (s->collecting)
			session_stop(s);
	}
	tell_agents(s, MSPROF_QUIT_REQ);
	for (i = 0; i < s->ntargets; i++) {
		t = &s->targets[i];
		target_disconnect(t);
		ctl_unlock(&t->lock);
	}
	tracer_close(s->tracer);
	s->tracer = NULL;
	probe_set_free(&s->probes);
}

int session_consume(struct session *s)
{
	struct collector *c = &s->collector;
	int i, err;

	do {
		err = tracer_consume(s->tracer);
		for (i = 0; i < c->nforked; i++)
			adopt(s, c->forked[i], false);
		c->nforked = 0;
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
			tracer_remove_target(s->tracer, t->host_pid);
			if (forget_if_idle(s, i)) {
				i--;
				continue;
			}
			t->exited = true;
			printf("msprof: pid %d exited\n", t->host_pid);
			/* An agent flushes a running window as its task exits. */
			if (*t->dir && t->fd >= 0)
				target_collect_device_data(t);
			target_disconnect(t);
			t->device_status = -ESRCH;
		}
		alive += !t->exited;
	}
	return alive > 0;
}

void session_status(struct session *s)
{
	uint64_t stats[MSPROF_STAT_MAX] = { 0 };
	struct collector_sink *sink;
	struct clock_pair now;
	int i;

	session_consume(s);
	clock_pair_now(&now);
	tracer_stats(s->tracer, stats);
	if (s->collecting)
		printf("state: collecting, window %u, %.1f s so far, %llu events lost\n",
		       s->windows, (double)(now.mono_ns - s->start.mono_ns) / 1e9,
		       (unsigned long long)(stats[MSPROF_STAT_LOST] -
					    s->stats_at_start[MSPROF_STAT_LOST]));
	else
		printf("state: stopped, %u window%s written\n", s->windows,
		       s->windows == 1 ? "" : "s");
	for (i = 0; i < s->ntargets; i++) {
		struct target *t = &s->targets[i];

		printf("pid %d (%s):", t->host_pid, t->comm);
		sink = collector_find(&s->collector, t->host_pid);
		if (sink)
			printf(" %llu API calls, %llu ioctls so far;",
			       (unsigned long long)sink->api_events,
			       (unsigned long long)sink->ioctl_events);
		if (t->exited)
			printf(" exited\n");
		else if (s->host_only)
			printf(" host-side only\n");
		else if (t->fd < 0)
			printf(" agent not connected\n");
		else
			printf(" %u of %d agent requests used\n", t->requests,
			       MSPROF_MAX_MSGS);
	}
}
