/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_TRACER_H
#define MSPROF_TRACER_H

#include <bpf/libbpf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "attach.h"
#include "msprof/events.h"
#include "probes.h"

/*
 * The BPF side, loaded once per controller.  Probes are attached for a
 * window and detached after it, so a task pays nothing between windows.
 */
struct tracer;

struct tracer_config {
	size_t ringbuf_bytes;	/* a power of two, at least a page */
	bool ioctl_payload;	/* keep the start of ioctls' argument structs */
	bool cookies;		/* the kernel has BPF attach cookies */
	bool uprobe_multi;	/* the kernel makes uprobe_multi links */
	bool sched;		/* load the thread-state hooks (--host-sys=sched) */
	/*
	 * --host-sys=osrt: the syscall hooks record every syscall of the
	 * targets' threads, and a blocking pthread call is kept when it
	 * waited osrt_threshold_ns or more.
	 */
	bool osrt;
	uint64_t osrt_threshold_ns;
};

int tracer_open(struct tracer **out, const struct tracer_config *cfg,
		ring_buffer_sample_fn on_event, void *ctx);
void tracer_close(struct tracer *t);

/* The kernel-side filter of processes (pids as msprof sees them). */
int tracer_add_target(struct tracer *t, int pid);
/*
 * Where the kernel finds host_pid's Python frames at each probed call
 * (NULL: it takes none).  Removing the target forgets it too.
 */
int tracer_set_python(struct tracer *t, int host_pid,
		      const struct msprof_py_conf *conf);
/* Its losses go with it: tracer_target_lost() first to keep them. */
int tracer_remove_target(struct tracer *t, int host_pid);

/* What arming a target did, for the caller's lines. */
struct tracer_armed {
	bool attached[MSPROF_MAX_APIS];	/* per function of the set: probed */
	char lib[PATH_MAX];	/* the library the kernel refused probes in, or "" */
	struct attach_refused refused;
};

/*
 * The driver device nodes of every runtime host_pid maps into the kernel's
 * filter (probe_devices), now that its libraries are mapped.  The task can
 * make this fail or take seconds (its /dev, its environment): a window
 * asks it before it makes anything, so that this costs no PROF_ directory.
 */
int tracer_filter_devices(struct tracer *t, int host_pid);
/*
 * Arms host_pid for a window once its PROF_ directory and host file are
 * open, so that no record comes before there is a place for it: entry and
 * return probes on every function of the set that it maps (the first file wins): a pack's in the libraries of its
 * packs and in the task's main program (a runtime linked in statically), a
 * --uprobe one in the files its <lib> names (probe_in_library).  No other
 * file is read.  The cookie (or, without cookies, the entry address's
 * key) names the function's index.  a->attached[i] (ps->n of them) says
 * whether function i was found.  The set must be the same at every call
 * (files are looked up once).  On failure a->lib names the library the kernel refused probes in.  A file whose symbol
 * tables are past elfsym's or symcache's bounds is left out, which is no
 * failure: a->refused says which.
 */
int tracer_arm_target(struct tracer *t, int host_pid,
		      const struct probe_set *ps, struct tracer_armed *a);
/*
 * The ioctl syscall hooks, the thread-exit hook that keeps maps clean and,
 * with follow, the fork hook that makes targets' new processes targets.
 */
int tracer_attach_syscalls(struct tracer *t, bool follow);
/*
 * Whether the thread-state hooks were loaded: asked for, and msprof runs
 * in the initial pid namespace (a switching thread's ids are the host's).
 */
bool tracer_has_sched(const struct tracer *t);
/* The window's thread-state hooks (-ENOTSUP: not loaded). */
int tracer_attach_sched(struct tracer *t);
/* Opening forgets half-seen ioctls of an earlier window first. */
int tracer_set_gate(struct tracer *t, bool open);
/*
 * Detaching takes the kernel tens of milliseconds per uprobe link: begin
 * ends the window (calls that return from then on record nothing and are
 * counted unfinished) and hands every probe attached so far to background
 * threads, end waits until all are gone.
 * One batch at a time: begin ends the last one first.
 */
void tracer_detach_begin(struct tracer *t);
void tracer_detach_end(struct tracer *t);
/* Both: every probe gone on return. */
void tracer_detach(struct tracer *t);

/*
 * For poll(): readable once a quarter of the ring buffer waits; then call
 * tracer_consume().  Fewer records wake nobody (a wake-up per record would
 * cost the task more than the record): while probes are attached, call
 * tracer_consume() at least every TRACER_CONSUME_MS as well.
 */
#define TRACER_CONSUME_MS 50
int tracer_fd(struct tracer *t);
int tracer_consume(struct tracer *t);
/*
 * open[i]: the calls, ioctls and (osrt) syscalls of pids[i] still open in the kernel's
 * per-thread state after a stop's detach_begin, what was in flight in the
 * window it ended and so goes unrecorded.  One walk of the maps for all.
 */
int tracer_unfinished(struct tracer *t, const int *pids, int n, uint64_t *open);
/*
 * The target's records the ring buffer had no room for since the gate last
 * opened (0 for a pid no longer filtered): each window's own, where the
 * per-CPU MSPROF_STAT_LOST counts those of every target together.
 */
int tracer_target_lost(struct tracer *t, int host_pid, uint64_t *lost);
/* Sums of the per-CPU counters since load, indexed by enum msprof_stat. */
int tracer_stats(struct tracer *t, uint64_t out[MSPROF_STAT_MAX]);

#endif
