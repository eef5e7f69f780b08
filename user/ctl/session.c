// SPDX-License-Identifier: MIT
/* start and stop: what a window is made of, in the order it happens. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "task/ctl_lock.h"
#include "common/fsutil.h"
#include "launch.h"
#include "msprof/protocol.h"
#include "host/probes.h"
#include "task/procfs.h"
#include "task/profdir.h"
#include "session_int.h"
#include "common/testpoint.h"

/* Loads what fits the kernel: its features were asked before any launch. */
static int open_tracer(struct session *s, const struct msprof_opts *o,
		       const struct kfeatures *kf)
{
	struct tracer_config cfg = {
		.ringbuf_bytes = o->ringbuf_bytes,
		.ioctl_payload = o->ioctl_payload,
		.cookies = kf->cookies,
		.uprobe_multi = kf->uprobe_multi,
	};
	int err = tracer_open(&s->tracer, &cfg, collector_on_event,
			      &s->collector);

	/* The verifier says EINVAL or EACCES; it is then worth its log. */
	if (err == -EINVAL || err == -EACCES)
		ERR("kernel %s refused msprof's BPF programs: %s (MSPROF_VERBOSE=1 shows the verifier's log)",
		    kf->release, strerror(-err));
	else if (err)
		ERR("cannot load the BPF programs: %s", strerror(-err));
	return err;
}

static const char *output_problem(int err)
{
	switch (err) {
	case -ELOOP:
		return "is a symbolic link, or passes through one root does not own";
	case -ENOTDIR:
		return "is not a directory";
	case -EPERM:
		return "is owned by another user";
	case -EACCES:
		return "is writable by group or others and not sticky";
	default:
		return NULL;
	}
}

/*
 * Opened once: every PROF_ directory is made through out, so that a path
 * swapped under --output later has no effect.  The absolute path is for
 * the agent, which resolves it the same.
 */
static int open_output(const char *dir, int *out, char *abs)
{
	char fdpath[64];
	const char *why;
	ssize_t n;
	int err;

	err = dir_open_safe(dir, 0755, out);
	why = output_problem(err);
	if (why) {
		ERR("--output %s %s", dir, why);
		return err;
	}
	if (!err) {
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", *out);
		n = readlink(fdpath, abs, PATH_MAX - 1);
		err = n < 0 ? -errno : 0;
		if (!err)
			abs[n] = '\0';
	}
	if (err)
		ERR("cannot use output directory %s: %s", dir, strerror(-err));
	return err;
}

int session_open(struct session *s, const struct msprof_opts *o,
		 const struct kfeatures *kf, const int *pids, int npids,
		 pid_t launched, const char *home)
{
	struct target *t;
	char msg[256];
	int i, err = 0;

	memset(s, 0, sizeof(*s));
	s->out_fd = -1;
	s->host_only = o->host_only;
	err = probe_set_build(&s->probes, opts_layers(o), o->uprobes, msg,
			      sizeof(msg));
	if (err) {
		ERR("%s", err == -EINVAL ? msg : strerror(-err));
		return err;
	}
	s->follow = o->follow_children;
	s->params = (struct params_switches){
		.acl = o->ascendcl, .runtime_api = o->runtime_api,
		.hccl = o->hccl, .msproftx = o->msproftx,
		.task_time = o->task_time, .prof_level = o->prof_level,
		.msprof_pid = (int)getpid(),
	};
	s->launched = launched;
	s->home = home;
	testpoint("before-lock");
	for (i = 0; !err && i < npids; i++)
		err = check_target(s, pids[i], !s->host_only);
	testpoint("after-lock");
	/* Loaded before the output is made: a refusal must leave nothing. */
	if (!err)
		err = open_tracer(s, o, kf);
	testpoint("after-bpf-load");
	if (!err)
		err = open_output(o->output, &s->out_fd, s->output);
	for (i = 0; !err && i < s->ntargets; i++) {
		t = &s->targets[i];
		err = connect_target(s, t);
		if (!err)
			announce(t);
	}
	testpoint("after-connect");
	if (err)
		session_close(s);
	return err;
}

/* What the window's metadata says of t, as far as the start knows. */
static void window_summary(const struct session *s, const struct target *t,
			   struct profdir_summary *sum)
{
	*sum = (struct profdir_summary){
		.host_pid = t->host_pid,
		.ns_pid = t->ns_pid,
		.comm = t->comm,
		.rank_id = t->rank_id,
		.switches = &s->params,
		.window = s->windows,
		.start = s->start,
	};
}

/* Removes t's PROF_ directory, which holds no data worth keeping. */
static void discard_window(struct session *s, struct target *t)
{
	profdir_discard(s->out_fd, strrchr(t->dir, '/') + 1, t->dir_fd);
	t->dir_fd = -1;
	*t->dir = '\0';
}

/* Makes t's PROF_ directory with its host file, open in the collector. */
static int open_window(struct session *s, struct target *t)
{
	char name[64], pending[PATH_MAX + 96];
	struct profdir_summary sum;
	int err, fd;

	window_summary(s, t, &sum);
	/* Where the device data is should msprof die before stop copies it. */
	if (t->stage_fd >= 0) {
		snprintf(pending, sizeof(pending),
			 "not copied yet: the agent flushes it into %s%s",
			 t->task_stage,
			 t->own_mnt_ns ? " (in the task's root)" : "");
		sum.device_status = pending;
	}
	err = profdir_create(s->out_fd, &sum, name, sizeof(name), &t->dir_fd);
	if (err) {
		ERR("pid %d: cannot create a PROF_ directory in %s: %s",
		    t->host_pid, s->output, strerror(-err));
		return err;
	}
	/* Too long for messages only: output itself fits a path. */
	if (snprintf(t->dir, sizeof(t->dir), "%s/%s", s->output, name) >=
	    (int)sizeof(t->dir))
		t->dir[sizeof(t->dir) - 1] = '\0';
	testpoint("after-profdir");
	err = profdir_open_host_file(t->dir_fd, &fd);
	if (!err)
		err = collector_open(&s->collector, t->host_pid, fd, &s->probes);
	if (err) {
		ERR("cannot create %s/%s: %s", t->dir, PROFDIR_HOST_FILE,
		    strerror(-err));
		discard_window(s, t);
	}
	return err;
}

/* Closes t's host file and removes its PROF_ directory. */
static void close_window(struct session *s, struct target *t)
{
	struct collector_sink sink;

	collector_close(&s->collector, t->host_pid, &sink);
	discard_window(s, t);
}

int begin_window(struct session *s, struct target *t)
{
	bool attached[MSPROF_MAX_APIS];
	char lib[PATH_MAX];
	int err;

	/* A followed process may have become another program since. */
	if (t->followed)
		procfs_comm(t->host_pid, t->comm, sizeof(t->comm));
	t->rank_id = procfs_rank_id(t->host_pid);
	/* Its runtime's device nodes, now that its libraries are mapped. */
	err = add_device_nodes(s, t);
	if (err) {
		ERR("pid %d: cannot filter its device nodes: %s", t->host_pid,
		    strerror(-err));
		return err;
	}
	t->stage_ignored = 0;
	t->stage_left_out = 0;
	t->device_err = 0;
	t->ndevices = 0;
	t->server_ended = false;
	err = open_window(s, t);
	if (err)
		return err;
	err = tracer_attach_target(s->tracer, t->host_pid, &s->probes, attached,
				   lib, sizeof(lib));
	if (err) {
		ERR("pid %d: cannot attach probes%s%s: %s", t->host_pid,
		    *lib ? " in " : "", lib, strerror(-err));
		close_window(s, t);
		return err;
	}
	if (!t->followed)
		report_unprobed(s, t, attached);
	return 0;
}

/*
 * A start that failed (the reason is printed already) leaves no window:
 * the agents were not told to start, and the PROF_ directories begun go.
 */
static void abort_start(struct session *s)
{
	int i;

	tracer_set_gate(s->tracer, false);
	tracer_detach(s->tracer);
	/* What the probes recorded goes to the files about to go. */
	session_consume(s);
	for (i = 0; i < s->ntargets; i++)
		if (s->targets[i].dir_fd >= 0)
			close_window(s, &s->targets[i]);
	puts(MSPROF_SAYS_START_FAILED);
	printf("msprof: collection not started; nothing was written\n");
	/* The next start makes this window's directories afresh. */
	s->windows--;
}

int session_start(struct session *s)
{
	int i, err;

	if (s->collecting) {
		puts(MSPROF_SAYS_ALREADY_STARTED);
		printf("msprof: collection is already running (window %u); type stop first\n",
		       s->windows);
		return 0;
	}
	testpoint("start-begin");
	/* A server that ended the session since is connected again below. */
	check_agents(s);
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
	testpoint("after-attach");
	if (!err)
		err = tracer_set_gate(s->tracer, true);
	testpoint("after-gate-open");
	if (err) {
		abort_start(s);
		return err;
	}
	s->collecting = true;
	/* An agent lost earlier (a timeout, a restart) gets another chance. */
	for (i = 0; i < s->ntargets; i++) {
		struct target *t = &s->targets[i];

		if (t->fd < 0 && !t->exited && !s->host_only &&
		    !connect_target(s, t) && t->fd >= 0)
			printf("msprof: pid %d: reconnected to its agent\n", t->host_pid);
	}
	/* Device collection failing still leaves a useful host window. */
	tell_agents(s, MSPROF_START_REQ);
	testpoint("after-start-req");
	puts(MSPROF_SAYS_START_SUCCESS);
	printf("msprof: collection started (window %u)\n", s->windows);
	for (i = 0; i < s->ntargets; i++)
		if (*s->targets[i].dir)
			printf("msprof: pid %d: window in %s\n",
			       s->targets[i].host_pid, s->targets[i].dir);
	testpoint("collecting");
	return 0;
}

/* msprof's metadata for each device directory a runtime brought none for. */
static void describe_devices(const struct session *s, struct target *t)
{
	const char *backend = profdir_device_backend(t->dir_fd);
	unsigned int i;
	int err;

	for (i = 0; i < t->ndevices; i++) {
		if (t->devices[i].has_info)
			continue;
		err = profdir_write_device_meta(t->dir_fd, t->devices[i].id,
						backend, &s->params);
		if (err && !t->device_err)
			t->device_err = err;
	}
}

int end_window(struct session *s, struct target *t,
		      const struct window_end *we)
{
	struct collector_sink sink = { 0 };
	struct profdir_summary sum;
	char reason[128], why[128];
	int herr, err;

	window_summary(s, t, &sum);
	sum.lost_events = we->lost;
	sum.unfinished = we->unfinished;
	sum.target_exited = t->exited;
	herr = collector_close(&s->collector, t->host_pid, &sink);
	if (herr)
		ERR("pid %d: host data incomplete: %s", t->host_pid, strerror(-herr));
	if (t->followed && !sink.api_events && !sink.ioctl_events && !herr) {
		/* A helper process (a shell's sleep) leaves no trace. */
		discard_window(s, t);
		return 0;
	}
	if (t->device_status == MSPROF_SUCCESS &&
	    !target_collect_device_data(t))
		describe_devices(s, t);
	testpoint("after-device-copy");
	if (t->device_err)
		ERR("pid %d: cannot copy device data: %s", t->host_pid,
		    strerror(-t->device_err));
	if (t->stage_ignored)
		ERR("pid %d: ignored %u unexpected entries in the staging directory",
		    t->host_pid, t->stage_ignored);
	if (t->stage_left_out)
		ERR("pid %d: left out %u staged files: over the window's %llu-byte copy budget or the output's free-space reserve",
		    t->host_pid, t->stage_left_out, t->stage_max_bytes);
	if (herr)
		snprintf(reason, sizeof(reason), "host data: %s", strerror(-herr));
	else if (t->device_err)
		snprintf(reason, sizeof(reason), "device data: %s",
			 strerror(-t->device_err));
	else if (t->server_ended)
		snprintf(reason, sizeof(reason),
			 "device data: the task's profiling server ended the session during the window and stopped its collection");
	else if (t->stage_left_out)
		snprintf(reason, sizeof(reason),
			 "device data: %u staged files left out (copy budget or free-space reserve)",
			 t->stage_left_out);
	sum.incomplete_reason = herr || t->device_err || t->server_ended ||
				t->stage_left_out ?
				reason : NULL;
	sum.api_events = sink.api_events;
	sum.ioctl_events = sink.ioctl_events;
	sum.device_status = device_status_text(s, t, why, sizeof(why));
	clock_pair_now(&sum.end);
	testpoint("before-info-json");
	err = profdir_finish(t->dir_fd, &sum);
	close(t->dir_fd);
	t->dir_fd = -1;
	if (err)
		ERR("cannot finish %s: %s", t->dir, strerror(-err));
	else
		printf("msprof: %s: %llu API calls, %llu ioctls%s%s\n", t->dir,
		       (unsigned long long)sum.api_events,
		       (unsigned long long)sum.ioctl_events,
		       t->exited ? " (the task exited during the window)" : "",
		       sum.incomplete_reason ? " (incomplete)" : "");
	*t->dir = '\0';
	return err ?: herr ?: t->device_err;
}

/* An agent answered the window's STOP with a failure. */
static bool agent_failed(const struct session *s)
{
	int i;

	for (i = 0; i < s->ntargets; i++)
		if (*s->targets[i].dir &&
		    s->targets[i].device_status == MSPROF_FAIL)
			return true;
	return false;
}

int session_stop(struct session *s)
{
	uint64_t stats[MSPROF_STAT_MAX], ioctls = 0, unnamed = 0;
	struct window_end we = { 0 };
	int i, err, first = 0;

	if (!s->collecting) {
		puts(MSPROF_SAYS_NOT_STARTED);
		printf("msprof: collection is not running; type start first\n");
		return 0;
	}
	testpoint("stop-begin");
	tracer_set_gate(s->tracer, false);
	testpoint("after-gate-close");
	/* From here processes that targets start join for later windows. */
	s->collecting = false;
	tell_agents(s, MSPROF_STOP_REQ);
	testpoint("after-stop-req");
	/* msprof's word on the stop, as the agents answered; details follow. */
	puts(agent_failed(s) ? MSPROF_SAYS_STOP_FAILED : MSPROF_SAYS_STOP_SUCCESS);
	/* Returns still in flight now are lost with the probes; few by design. */
	tracer_detach(s->tracer);
	testpoint("after-detach");
	err = session_consume(s);
	testpoint("after-drain");
	if (err)
		ERR("reading the ring buffer failed: %s", strerror(-err));
	if (!tracer_stats(s->tracer, stats)) {
		we.lost = stats[MSPROF_STAT_LOST] - s->stats_at_start[MSPROF_STAT_LOST];
		unnamed = stats[MSPROF_STAT_UNNAMED] -
			  s->stats_at_start[MSPROF_STAT_UNNAMED];
	}
	if (we.lost)
		ERR("warning: %llu host events were lost (ring buffer full)",
		    (unsigned long long)we.lost);
	if (unnamed)
		ERR("warning: %llu calls were not recorded: they entered at an address msprof had not named (a library mapped again during the window)",
		    (unsigned long long)unnamed);
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

int session_quit(struct session *s)
{
	int i, err = 0, qerr;

	testpoint("quit-begin");
	if (s->tracer) {
		/* What is still in the ring buffer decides what is kept. */
		session_consume(s);
		/* A task that is gone gets no goodbye, and no error about it. */
		session_check_targets(s);
		if (s->collecting)
			err = session_stop(s);
	}
	qerr = tell_agents(s, MSPROF_QUIT_REQ);
	testpoint("after-quit-req");
	for (i = 0; i < s->ntargets; i++)
		disconnect_target(&s->targets[i]);
	return err ?: qerr;
}

void session_close(struct session *s)
{
	int i;

	/* Once quit, nothing is collecting and no agent is connected. */
	session_quit(s);
	for (i = 0; i < s->ntargets; i++)
		ctl_unlock(&s->targets[i].lock);
	tracer_close(s->tracer);
	s->tracer = NULL;
	probe_set_free(&s->probes);
	if (s->out_fd >= 0)
		close(s->out_fd);
	s->out_fd = -1;
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
