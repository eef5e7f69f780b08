// SPDX-License-Identifier: MIT
/*
 * open, start, stop, quit: what a session and its windows are made of, in
 * the order it happens.  One target's window is window.c's; who the
 * targets are is target_set.c's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/err.h"
#include "common/printable.h"
#include "common/fsutil.h"
#include "common/testpoint.h"
#include "launch.h"
#include "msprof/protocol.h"
#include "msprof/sched.h"
#include "session.h"
#include "target_set.h"
#include "tasklist.h"
#include "window.h"
#include "task/taskscan.h"

/* Everything one interactive msprof controls: its targets and windows. */
struct session {
	struct window_ctx w;		/* what every target's window shares */
	struct target_set targets;
	bool follow;			/* targets' new processes become targets */
	pid_t launched;			/* launch mode: the app msprof started */
	const char *home;		/* where launched ranks' sockets appear */
	int job;			/* --job: the launcher whose ranks join */
	unsigned long long job_start;	/* and when it started */
	uint64_t stats_at_start[MSPROF_STAT_MAX];
};

/* Loads what fits the kernel: its features were asked before any launch. */
static int open_tracer(struct session *s, const struct msprof_opts *o,
		       const struct kfeatures *kf)
{
	struct tracer_config cfg = {
		.ringbuf_bytes = o->ringbuf_bytes,
		.ioctl_payload = o->ioctl_payload,
		.cookies = kf->cookies,
		.uprobe_multi = kf->uprobe_multi,
		.sched = hostsys_on(&o->hostsys, HOSTSYS_SCHED),
		.osrt = hostsys_on(&o->hostsys, HOSTSYS_OSRT),
		.osrt_threshold_ns = (uint64_t)o->hostsys.osrt_threshold_us * 1000,
	};
	int err = tracer_open(&s->w.tracer, &cfg, collector_on_event,
			      &s->w.collector);

	/* The verifier says EINVAL or EACCES; it is then worth its log. */
	if (err == -EINVAL || err == -EACCES)
		ERR("kernel %s refused msprof's BPF programs: %s (MSPROF_VERBOSE=1 shows the verifier's log)",
		    kf->release, strerror(-err));
	else if (err)
		ERR("cannot load the BPF programs: %s", strerror(-err));
	if (!err && cfg.sched && !tracer_has_sched(s->w.tracer))
		WARN("--host-sys=sched: no thread states: msprof runs in a pid namespace of its own, where the kernel's switches name threads by their host ids");
	return err;
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

	err = fsutil_dir_open_safe(dir, 0755, out);
	why = fsutil_dir_open_problem(err);
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

int session_open(struct session **sp, const struct msprof_opts *o,
		 const struct kfeatures *kf, const int *pids, int npids,
		 pid_t launched, const char *home)
{
	struct session *s;
	char msg[256];
	int i, err = 0;

	s = calloc(1, sizeof(*s));
	if (!s) {
		ERR("cannot allocate the session: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	s->w.host = &window_tracer_ops;
	s->w.link.out_fd = -1;
	s->w.link.stage_budget = &s->w.stage_budget;
	s->w.host_only = o->host_only;
	s->w.python_depth = o->python_stack ? o->python_depth : 0;
	s->w.hostsys = o->hostsys;
	/* From here on session_close() undoes whatever was done. */
	err = target_set_init(&s->targets, &s->w);
	if (err) {
		ERR("cannot allocate the session: %s", strerror(-err));
	} else {
		err = probe_set_build(&s->w.probes, opts_layers(o), o->uprobes,
				      msg, sizeof(msg));
		if (err)
			ERR("%s", err == -EINVAL ? msg : strerror(-err));
	}
	s->follow = o->follow_children;
	s->w.link.params = (struct params_switches){
		.acl = o->ascendcl, .runtime_api = o->runtime_api,
		.hccl = o->hccl, .msproftx = o->msproftx,
		.task_time = o->task_time, .prof_level = o->prof_level,
		.msprof_pid = (int)getpid(),
	};
	s->launched = launched;
	s->home = home;
	/* The launcher whose ranks were taken: a pid reused since is not it. */
	s->job = o->job;
	s->job_start = o->job_start;
	testpoint("before-lock");
	for (i = 0; !err && i < npids; i++)
		err = target_set_take(&s->targets, pids[i], !s->w.host_only);
	testpoint("after-lock");
	/* Loaded before the output is made: a refusal must leave nothing. */
	if (!err)
		err = open_tracer(s, o, kf);
	testpoint("after-bpf-load");
	if (!err)
		err = open_output(o->output, &s->w.link.out_fd, s->w.link.output);
	if (!err)
		err = target_set_connect_all(&s->targets);
	testpoint("after-connect");
	if (err)
		session_close(s);
	else
		*sp = s;
	return err;
}

/*
 * Reads the whole ring buffer into the targets' files; a process a target
 * started joins as its fork record comes, before its own records.
 */
static int drain(struct session *s)
{
	int err;

	while ((err = target_set_read(&s->targets)) > 0)
		target_set_follow(&s->targets);
	return err;
}

/*
 * A start that failed (the reason is printed already) leaves no window:
 * the agents were not told to start, and the PROF_ directories begun go.
 */
static void abort_start(struct session *s)
{
	tracer_set_gate(s->w.tracer, false);
	tracer_detach(s->w.tracer);
	/* What the probes recorded goes to the files about to go. */
	drain(s);
	target_set_abort_windows(&s->targets);
	sys_sampler_stop(s->w.sampler);
	s->w.sampler = NULL;
	puts(MSPROF_SAYS_START_FAILED);
	printf("msprof: collection not started; nothing was written\n");
	/* The next start makes this window's directories afresh. */
	s->w.number--;
}

/*
 * The one place new ranks join, at a start: those the launched app
 * started since, and as in launch mode, the job's; each with its own
 * agent.
 */
static void adopt_new_ranks(struct session *s)
{
	struct target_set *ts = &s->targets;
	size_t left;

	if (s->launched)
		launch_each_task(s->launched, s->home, target_set_adopt_rank, ts);
	if (s->job && tasklist_each_rank(s->job, s->job_start,
					 target_set_adopt_rank, ts,
					 &left) == -ETIME)
		WARN("job %d: %zu processes not looked at for ranks started since: the scan took its %d s",
		     s->job, left, TASKSCAN_BUDGET_MS / 1000);
}

int session_start(struct session *s, uint64_t requested_real_ns)
{
	struct target_set *ts = &s->targets;
	int i, err;

	if (s->w.collecting) {
		puts(MSPROF_SAYS_ALREADY_STARTED);
		printf("msprof: collection is already running (window %u); type stop first\n",
		       s->w.number);
		return 0;
	}
	testpoint("start-begin");
	/* A server that ended the session since is connected again below. */
	target_set_drop_ended_agents(ts);
	adopt_new_ranks(s);
	s->w.number++;
	/* One budget for the window, however many targets share it. */
	s->w.stage_budget = (struct fsutil_budget){
		.max = testpoint_limit("stage_bytes", STAGE_COPY_MAX_BYTES),
	};
	clock_pair_now(&s->w.start);
	s->w.requested_real_ns = requested_real_ns;
	s->w.opened_real_ns = 0;
	err = tracer_stats(s->w.tracer, s->stats_at_start);
	s->w.collector.unattributed = 0;
	/* The windows' /proc samples: one thread for every target. */
	if (!err && sys_sampler_wanted(&s->w.hostsys)) {
		err = sys_sampler_start(&s->w.sampler, &s->w.hostsys);
		if (err)
			ERR("cannot start the host-sys sampler: %s", strerror(-err));
	}
	if (!err)
		err = target_set_begin_windows(ts);
	if (!err)
		err = tracer_attach_syscalls(s->w.tracer, s->follow);
	if (!err && tracer_has_sched(s->w.tracer))
		err = tracer_attach_sched(s->w.tracer);
	testpoint("after-attach");
	if (!err)
		err = tracer_set_gate(s->w.tracer, true);
	/* Every switch from here on is recorded: a thread's first is its state since. */
	if (!err && tracer_has_sched(s->w.tracer))
		collector_sched_mark(&s->w.collector, MSPROF_SCHED_BEGIN,
				     clock_ns(CLOCK_MONOTONIC));
	/* The instant collection began, for the spread of many nodes' starts. */
	s->w.opened_real_ns = clock_ns(CLOCK_REALTIME);
	testpoint("after-gate-open");
	if (err) {
		abort_start(s);
		return err;
	}
	s->w.collecting = true;
	/* An agent lost earlier (a timeout, a restart) gets another chance. */
	target_set_reconnect(ts);
	/* Device collection failing still leaves a useful host window. */
	target_set_request(ts, MSPROF_START_REQ);
	testpoint("after-start-req");
	puts(MSPROF_SAYS_START_SUCCESS);
	printf("msprof: collection started (window %u)\n", s->w.number);
	for (i = 0; i < ts->n; i++)
		if (*ts->v[i].dir)
			printf("msprof: pid %d: window in %s\n",
			       ts->v[i].host_pid, ts->v[i].dir);
	testpoint("collecting");
	return 0;
}

/* An agent answered the window's STOP with a failure. */
static bool agent_failed(const struct target_set *ts)
{
	int i;

	for (i = 0; i < ts->n; i++)
		if (*ts->v[i].dir && ts->v[i].device_status == MSPROF_FAIL)
			return true;
	return false;
}

/*
 * Each target's own losses: records the ring buffer had no room for, and
 * calls cut by the stop.  Returns the calls cut, of all targets together.
 */
static uint64_t count_losses(struct session *s, struct window_losses *wl)
{
	struct target_set *ts = &s->targets;
	int pids[MSPROF_MAX_PIDS], i;
	uint64_t open[MSPROF_MAX_PIDS], cut = 0;

	for (i = 0; i < ts->n; i++) {
		struct target *t = &ts->v[i];

		pids[i] = t->host_pid;
		wl[i].lost = t->lost_at_exit;
		if (!t->exited)
			tracer_target_lost(s->w.tracer, t->host_pid, &wl[i].lost);
	}
	if (tracer_unfinished(s->w.tracer, pids, ts->n, open))
		return 0;
	for (i = 0; i < ts->n; i++) {
		wl[i].unfinished = open[i];
		cut += open[i];
	}
	return cut;
}

int session_stop(struct session *s)
{
	struct window_losses wl[MSPROF_MAX_PIDS] = { 0 };
	uint64_t stats[MSPROF_STAT_MAX], lost = 0, unnamed = 0, short_calls = 0, cut;
	struct target_set *ts = &s->targets;
	int err;

	if (!s->w.collecting) {
		puts(MSPROF_SAYS_NOT_STARTED);
		printf("msprof: collection is not running; type start first\n");
		return 0;
	}
	testpoint("stop-begin");
	tracer_set_gate(s->w.tracer, false);
	if (tracer_has_sched(s->w.tracer))
		collector_sched_mark(&s->w.collector, MSPROF_SCHED_END,
				     clock_ns(CLOCK_MONOTONIC));
	testpoint("after-gate-close");
	/* From here processes that targets start join for later windows. */
	s->w.collecting = false;
	/*
	 * The window's calls end here: those still running are counted as
	 * unfinished, and the probes go in the background while the agents
	 * stop and the window is written.
	 */
	tracer_detach_begin(s->w.tracer);
	testpoint("after-detach");
	target_set_request(ts, MSPROF_STOP_REQ);
	testpoint("after-stop-req");
	/* msprof's word on the stop, as the agents answered; details follow. */
	puts(agent_failed(ts) ? MSPROF_SAYS_STOP_FAILED : MSPROF_SAYS_STOP_SUCCESS);
	err = drain(s);
	testpoint("after-drain");
	if (err)
		ERR("reading the ring buffer failed: %s", strerror(-err));
	cut = count_losses(s, wl);
	if (!tracer_stats(s->w.tracer, stats)) {
		lost = stats[MSPROF_STAT_LOST] - s->stats_at_start[MSPROF_STAT_LOST];
		unnamed = stats[MSPROF_STAT_UNNAMED] -
			  s->stats_at_start[MSPROF_STAT_UNNAMED];
		short_calls = stats[MSPROF_STAT_OSRT_SHORT] -
			      s->stats_at_start[MSPROF_STAT_OSRT_SHORT];
	}
	/* Each window says its own; this counts those of every target. */
	if (lost)
		WARN("%llu host events were lost (ring buffer full)",
		    (unsigned long long)lost);
	if (unnamed)
		WARN("%llu calls were not recorded: they entered at an address msprof had not named (a library mapped again during the window)",
		    (unsigned long long)unnamed);
	if (short_calls)
		printf("msprof: %llu lock and wait calls waited less than --osrt-threshold=%u us: not kept\n",
		       (unsigned long long)short_calls, s->w.hostsys.osrt_threshold_us);
	if (cut)
		printf("msprof: %llu calls were still running at stop and are not in the window\n",
		       (unsigned long long)cut);
	if (s->w.collector.unattributed)
		WARN("%llu host events of processes that joined as the window closed were not kept",
		    (unsigned long long)s->w.collector.unattributed);
	err = target_set_end_windows(ts, wl);
	sys_sampler_stop(s->w.sampler);
	s->w.sampler = NULL;
	tracer_detach_end(s->w.tracer);
	/*
	 * Ioctls that returned since the drain are no window's (counted
	 * unfinished above): taken out now, so that no later window gets them.
	 */
	drain(s);
	s->w.collector.unattributed = 0;
	printf("msprof: collection stopped (window %u)\n", s->w.number);
	return err;
}

int session_quit(struct session *s)
{
	int err = 0, qerr;

	testpoint("quit-begin");
	if (s->w.tracer) {
		/* What is still in the ring buffer decides what is kept. */
		drain(s);
		/* A task that is gone gets no goodbye, and no error about it. */
		target_set_notice_exits(&s->targets);
		if (s->w.collecting)
			err = session_stop(s);
	}
	qerr = target_set_request(&s->targets, MSPROF_QUIT_REQ);
	testpoint("after-quit-req");
	target_set_disconnect(&s->targets);
	return err ?: qerr;
}

void session_close(struct session *s)
{
	/* Once quit, nothing is collecting and no agent is connected. */
	session_quit(s);
	target_set_free(&s->targets);
	tracer_close(s->w.tracer);
	probe_set_free(&s->w.probes);
	if (s->w.link.out_fd >= 0)
		close(s->w.link.out_fd);
	free(s);
}

void session_status(struct session *s)
{
	uint64_t stats[MSPROF_STAT_MAX] = { 0 };
	struct target_set *ts = &s->targets;
	struct collector_sink *sink;
	struct clock_pair now;
	int i;

	/* Reading only: a new process waits for the loop's session_consume. */
	target_set_read(ts);
	clock_pair_now(&now);
	tracer_stats(s->w.tracer, stats);
	if (s->w.collecting)
		printf("state: collecting, window %u, %.1f s so far, %llu events lost\n",
		       s->w.number,
		       (double)(now.mono_ns - s->w.start.mono_ns) / 1e9,
		       (unsigned long long)(stats[MSPROF_STAT_LOST] -
					    s->stats_at_start[MSPROF_STAT_LOST]));
	else
		printf("state: stopped, %u window%s written\n", s->w.number,
		       s->w.number == 1 ? "" : "s");
	for (i = 0; i < ts->n; i++) {
		struct target *t = &ts->v[i];
		char comm[sizeof(t->comm)];

		printf("pid %d (%s):", t->host_pid,
		       printable_copy(comm, sizeof(comm), t->comm));
		sink = collector_find(&s->w.collector, t->host_pid);
		if (sink)
			printf(" %llu API calls, %llu ioctls so far;",
			       (unsigned long long)sink->api_events,
			       (unsigned long long)sink->ioctl_events);
		if (sink && sink->py) {
			char py[192];

			collector_python_text(sink, py, sizeof(py));
			printf(" %s;", py);
		}
		if (t->exited)
			printf(" exited\n");
		else if (s->w.host_only)
			printf(" host-side only\n");
		else if (t->fd < 0)
			printf(" agent not connected\n");
		else
			printf(" %u of %d agent requests used\n", t->requests,
			       MSPROF_MAX_MSGS);
	}
}

int session_consume(struct session *s)
{
	return drain(s);
}

bool session_check_targets(struct session *s)
{
	return target_set_notice_exits(&s->targets);
}

bool session_collecting(const struct session *s)
{
	return s->w.collecting;
}

unsigned int session_windows(const struct session *s)
{
	return s->w.number;
}

int session_fd(const struct session *s)
{
	return tracer_fd(s->w.tracer);
}
