// SPDX-License-Identifier: MIT
/* A target's window, from its PROF_ directory made to its info.json written. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/printable.h"
#include "common/testpoint.h"
#include "msprof/protocol.h"
#include "proc/procfs.h"
#include "proc/procread.h"
#include "host/pyruntime.h"
#include "sys/sysread.h"
#include "task/profdir.h"
#include "window.h"

const struct window_host_ops window_tracer_ops = {
	.devices = tracer_filter_devices,
	.arm = tracer_arm_target,
	.filter = tracer_add_target,
	.unfilter = tracer_remove_target,
	.lost = tracer_target_lost,
	.consume = tracer_consume,
	.python = tracer_set_python,
};

/* What the window's metadata says of t, as far as the start knows. */
static void window_summary(const struct window_ctx *w, const struct target *t,
			   struct profdir_summary *sum)
{
	*sum = (struct profdir_summary){
		.host_pid = t->host_pid,
		.ns_pid = t->ns_pid,
		.comm = t->comm,
		.rank_id = t->rank_id,
		.switches = &w->link.params,
		.hostsys = &w->hostsys,
		.window = w->number,
		.start = w->start,
		.requested_real_ns = w->requested_real_ns,
		.opened_real_ns = w->opened_real_ns,
	};
}

/* Removes t's PROF_ directory, which holds no data worth keeping. */
static void discard_window(struct window_ctx *w, struct target *t)
{
	profdir_discard(w->link.out_fd, strrchr(t->dir, '/') + 1, t->dir_fd);
	t->dir_fd = -1;
	*t->dir = '\0';
}

/* Makes t's PROF_ directory with its host file, open in the collector. */
static int open_window(struct window_ctx *w, struct target *t)
{
	char name[64], pending[PATH_MAX + 96];
	struct profdir_summary sum;
	int err, fd;

	window_summary(w, t, &sum);
	/* Where the device data is should msprof die before stop copies it. */
	if (t->stage.fd >= 0) {
		snprintf(pending, sizeof(pending),
			 "not copied yet: the agent flushes it into %s%s",
			 t->stage.task_path,
			 t->own_mnt_ns ? " (in the task's root)" : "");
		sum.device_status = pending;
	}
	err = profdir_create(w->link.out_fd, &sum, name, sizeof(name),
			     &t->dir_fd);
	if (err) {
		ERR("pid %d: cannot create a PROF_ directory in %s: %s",
		    t->host_pid, printable_copy(t->dir, sizeof(t->dir),
						w->link.output),
		    strerror(-err));
		*t->dir = '\0';
		return err;
	}
	/* Too long for messages only: output itself fits a path. */
	if (snprintf(t->dir, sizeof(t->dir), "%s/%s", w->link.output, name) >=
	    (int)sizeof(t->dir))
		t->dir[sizeof(t->dir) - 1] = '\0';
	/*
	 * For messages: the output's path is read back from its fd, and the
	 * owner of a directory above it may have renamed a part since.
	 */
	printable(t->dir);
	testpoint("after-profdir");
	err = profdir_open_host_file(t->dir_fd, &fd);
	if (!err)
		err = collector_open(&w->collector, t->host_pid, fd, &w->probes);
	if (!err && hostsys_on(&w->hostsys, HOSTSYS_OSRT))
		err = collector_set_osrt(&w->collector, t->host_pid,
					 &(struct osrt_sink_conf){
			.dir = t->dir_fd, .pid = (uint32_t)t->ns_pid,
			.comm = t->comm, .start = w->start, .ps = &w->probes,
		});
	if (err) {
		ERR("cannot create %s/%s: %s", t->dir, PROFDIR_HOST_FILE,
		    strerror(-err));
		discard_window(w, t);
	}
	return err;
}

/*
 * t's host-sys samples end: its files written whole (or, discard, removed);
 * what went wrong is said and, unless discarded, kept in why.
 */
static int end_samples(struct window_ctx *w, struct target *t, bool discard,
		       char *why, size_t len)
{
	struct sys_result r;
	int err;

	if (!w->sampler)
		return 0;
	err = sys_sampler_remove(w->sampler, t->host_pid, discard, &r);
	if (discard || err == -ENOENT)
		return 0;
	if (err == -ETIMEDOUT) {
		WARN("pid %d: host-sys samples cut: the sampler did not answer within %d ms (a /proc read waits on a task whose exec is stuck); it ends by itself",
		     t->host_pid, SYS_SAMPLER_WAIT_MS);
		snprintf(why, len, "host-sys data: the sampler did not answer at stop");
		return err;
	}
	err = err ?: r.err;
	if (err) {
		ERR("pid %d: host-sys data incomplete: %s", t->host_pid,
		    err == -ENOSPC ? "its files reached their budget or the output's free-space reserve" :
		    strerror(-err));
		snprintf(why, len, "host-sys data: %s", strerror(-err));
	}
	if (r.threads_left_out)
		WARN("pid %d: host-sys: %u threads not sampled (past %d a task, or a sample's 2 MB)",
		     t->host_pid, r.threads_left_out, SYSREAD_THREADS_MAX);
	if (r.procs_left_out)
		WARN("host-sys usage: %u processes not sampled (past %d)",
		     r.procs_left_out, SYSREAD_PIDS_MAX);
	printf("msprof: pid %d: host-sys: %llu samples%s\n", t->host_pid,
	       r.samples, r.ended ? ", ended as the task exited" : "");
	return err;
}

void window_abort(struct window_ctx *w, struct target *t)
{
	struct collector_sink sink;

	end_samples(w, t, true, NULL, 0);
	collector_close(&w->collector, t->host_pid, &sink);
	discard_window(w, t);
}

/* Says what a target was not probed for: attached[] from the tracer. */
static void report_unprobed(const struct window_ctx *w, const struct target *t,
			    const bool *attached)
{
	const struct probe_set *ps = &w->probes;
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
			WARN("--uprobe %s:%s: no library matching %s is mapped by pid %d",
			     p->lib, p->name, p->lib, t->host_pid);
		else
			WARN("--uprobe %s:%s: no function %s in any library matching %s that pid %d maps (first: %s)",
			     p->lib, p->name, p->name, p->lib, t->host_pid,
			     printable(lib));
	}
}

/* A file the task maps that was not read for its symbols: its one line. */
static void report_refused(const struct target *t,
			   struct attach_refused *r)
{
	if (!*r->path)
		return;
	if (r->others)
		WARN("pid %d: not reading the symbols of %s (%s), nor of %u other file%s",
		     t->host_pid, printable(r->path), r->why, r->others,
		     r->others == 1 ? "" : "s");
	else
		WARN("pid %d: not reading the symbols of %s (%s)", t->host_pid,
		     printable(r->path), r->why);
}

/*
 * Why t could not be armed (a: the probes' step, NULL: its device nodes),
 * unless it is gone: then the caller forgets it.
 */
static void report_unarmed(const struct target *t, struct tracer_armed *a,
			   int err)
{
	if (!procfs_alive(t->host_pid))
		return;
	if (!a)
		ERR("pid %d: cannot filter its device nodes: %s", t->host_pid,
		    procread_strerror(err));
	else
		ERR("pid %d: cannot attach probes%s%s: %s", t->host_pid,
		    *a->lib ? " in " : "", printable(a->lib),
		    procread_strerror(err));
}

/*
 * The kernel takes t's Python stacks if it runs a CPython msprof can
 * walk; one that it cannot is said, and the window goes on without.
 */
static void arm_python(struct window_ctx *w, struct target *t)
{
	static struct pyruntime py;
	char why[256];
	int err;

	if (!w->python_depth || !w->host->python)
		return;
	err = pyruntime_find(t->host_pid, w->python_depth, &py, why, sizeof(why));
	if (err == -ENOTSUP) {
		WARN("pid %d: no Python stacks: %s", t->host_pid, why);
		return;
	}
	if (err)
		return;		/* no CPython there, or the task went */
	err = collector_set_python(&w->collector, t->host_pid, &py);
	if (!err)
		err = w->host->python(w->tracer, t->host_pid, &py.conf);
	if (err)
		WARN("pid %d: no Python stacks: %s", t->host_pid, strerror(-err));
}

int window_begin(struct window_ctx *w, struct target *t)
{
	struct tracer_armed armed;
	int err;

	/* A followed process may have become another program since. */
	if (t->followed)
		procfs_comm(t->host_pid, t->comm, sizeof(t->comm));
	t->rank_id = procfs_rank_id(t->host_pid);
	err = w->host->devices(w->tracer, t->host_pid);
	if (err) {
		report_unarmed(t, NULL, err);
		return err;
	}
	target_window_reset(t);
	err = open_window(w, t);
	if (err)
		return err;
	err = w->host->arm(w->tracer, t->host_pid, &w->probes, &armed);
	if (err) {
		report_unarmed(t, &armed, err);
		window_abort(w, t);
		return err;
	}
	arm_python(w, t);
	/* Host data is no reason to lose the window: said, and it goes on. */
	if (w->sampler && (err = sys_sampler_add(w->sampler, t->host_pid, t->dir_fd)))
		WARN("pid %d: no host-sys samples: %s", t->host_pid, strerror(-err));
	/* A followed child's files are its parent's: said for the parent. */
	if (!t->followed) {
		report_refused(t, &armed.refused);
		report_unprobed(w, t, armed.attached);
	}
	return 0;
}

/* msprof's metadata for each device directory a runtime brought none for. */
static void describe_devices(const struct window_ctx *w, struct target *t)
{
	const char *backend = profdir_device_backend(t->dir_fd);
	unsigned int i;
	int err;

	for (i = 0; i < t->copied.ndevices; i++) {
		if (t->copied.devices[i].has_info)
			continue;
		err = profdir_write_device_meta(t->dir_fd, t->copied.devices[i].id,
						backend, &w->link.params);
		if (err && !t->device_err)
			t->device_err = err;
	}
}

/*
 * Why t's window is incomplete, the first reason of: its host file (herr),
 * its device data (caps: what the copy left out), its host-sys samples
 * (sys_why); NULL if it is complete.
 */
static const char *incomplete_reason(const struct target *t, int herr,
				     const char *caps, const char *sys_why,
				     char *reason, size_t len)
{
	if (herr)
		snprintf(reason, len, "host data: %s", strerror(-herr));
	else if (t->device_err)
		snprintf(reason, len, "device data: %s", strerror(-t->device_err));
	else if (t->server_ended)
		snprintf(reason, len,
			 "device data: the task's profiling server ended the session during the window and stopped its collection");
	else if (t->copied.left_out)
		snprintf(reason, len, "device data: %u staged entr%s left out (%s)",
			 t->copied.left_out, t->copied.left_out == 1 ? "y" : "ies",
			 caps);
	else if (sys_why)
		snprintf(reason, len, "%s", sys_why);
	else
		return NULL;
	return reason;
}

int window_end(struct window_ctx *w, struct target *t,
	       const struct window_losses *wl)
{
	struct collector_sink sink = { 0 };
	struct profdir_summary sum;
	char reason[384], why[128], caps[256], sys_why[128];
	bool helper;
	int herr, serr, err;

	window_summary(w, t, &sum);
	sum.lost_events = wl->lost;
	sum.unfinished = wl->unfinished;
	sum.target_exited = t->exited;
	herr = collector_close(&w->collector, t->host_pid, &sink);
	if (herr)
		ERR("pid %d: host data incomplete: %s", t->host_pid, strerror(-herr));
	helper = t->followed && !sink.api_events && !sink.ioctl_events && !herr;
	serr = end_samples(w, t, helper, sys_why, sizeof(sys_why));
	if (helper) {
		/* A helper process (a shell's sleep) leaves no trace. */
		discard_window(w, t);
		return 0;
	}
	if (t->device_status == MSPROF_SUCCESS)
		agent_link_take_device_data(t, &w->link);
	/* Also what a task's agent flushed as it exited in the window. */
	describe_devices(w, t);
	testpoint("after-device-copy");
	if (t->device_err)
		ERR("pid %d: cannot copy device data: %s", t->host_pid,
		    strerror(-t->device_err));
	if (t->copied.ignored)
		WARN("pid %d: ignored %u unexpected entries in the staging directory",
		     t->host_pid, t->copied.ignored);
	if (t->copied.left_out)
		WARN("pid %d: left out %u staged entr%s: %s", t->host_pid,
		     t->copied.left_out, t->copied.left_out == 1 ? "y" : "ies",
		     stage_copy_left_text(&t->copied, &w->stage_budget, caps, sizeof(caps)));
	sum.incomplete_reason = incomplete_reason(t, herr, caps,
						  serr ? sys_why : NULL, reason,
						  sizeof(reason));
	sum.api_events = sink.api_events;
	sum.ioctl_events = sink.ioctl_events;
	sum.device_status = agent_link_status_text(t, w->host_only, why,
						   sizeof(why));
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
	if (*sink.py_text)
		printf("msprof: pid %d: %s\n", t->host_pid, sink.py_text);
	if (sink.sched_events)
		printf("msprof: pid %d: %llu thread switches and wake-ups\n",
		       t->host_pid, (unsigned long long)sink.sched_events);
	if (hostsys_on(&w->hostsys, HOSTSYS_OSRT))
		printf("msprof: pid %d: OS runtime: %llu syscalls, %llu pthread calls, %llu blocking calls of %u us or more, on %llu threads\n",
		       t->host_pid, (unsigned long long)sink.osrt_counts.syscalls,
		       (unsigned long long)sink.osrt_counts.pthread_calls,
		       (unsigned long long)sink.osrt_counts.blocking,
		       w->hostsys.osrt_threshold_us,
		       (unsigned long long)sink.osrt_counts.threads);
	*t->dir = '\0';
	return err ?: herr ?: t->device_err;
}
