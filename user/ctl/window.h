/* SPDX-License-Identifier: MIT */
/*
 * One target's part of a collection window: its PROF_ directory and host
 * file, its probes and device nodes at the start; its counts, device data
 * and info.json at the end.
 */
#ifndef MSPROF_WINDOW_H
#define MSPROF_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "common/clock.h"
#include "common/hostsys.h"
#include "host/collector.h"
#include "host/probes.h"
#include "host/tracer.h"
#include "sys/sampler.h"
#include "task/agent_link.h"
#include "task/target.h"

/*
 * What the windows and the set of targets ask of the kernel's side: the
 * tracer's (window_tracer_ops), or a unit test's stand-in.
 */
struct window_host_ops {
	int (*devices)(struct tracer *t, int host_pid);
	int (*arm)(struct tracer *t, int host_pid, const struct probe_set *ps,
		   struct tracer_armed *a);
	int (*filter)(struct tracer *t, int pid);
	int (*unfilter)(struct tracer *t, int host_pid);
	int (*lost)(struct tracer *t, int host_pid, uint64_t *lost);
	int (*consume)(struct tracer *t);
	int (*python)(struct tracer *t, int host_pid,
		      const struct msprof_py_conf *conf);
};
extern const struct window_host_ops window_tracer_ops;

/* What every target's window shares. */
struct window_ctx {
	const struct window_host_ops *host;
	struct tracer *tracer;
	struct collector collector;
	struct probe_set probes;	/* what is probed; index = API id */
	struct agent_link_conf link;	/* the output; what the agents collect */
	/*
	 * What the window's copies from the stages may write, all targets
	 * together (link.stage_budget points here); reset at each start.
	 */
	struct fsutil_budget stage_budget;
	bool host_only;			/* no agents: eBPF data only */
	unsigned int python_depth;	/* Python frames kept a call; 0: none */
	struct hostsys_conf hostsys;	/* --host-sys and --host-sys-usage */
	struct sys_sampler *sampler;	/* its /proc samples; NULL: none asked */
	bool collecting;		/* a window runs: from start to stop */
	unsigned int number;		/* windows started so far */
	struct clock_pair start;
	uint64_t requested_real_ns;	/* "start at": the instant asked; 0: none */
	uint64_t opened_real_ns;	/* the gate opened; 0: not yet */
};

/* What a window's end knows of all its targets together. */
struct window_losses {
	uint64_t lost;		/* records the kernel could not reserve */
	uint64_t unfinished;	/* calls and ioctls cut by the stop */
};

/*
 * Makes t's PROF_ directory with its host file and attaches its probes;
 * says what went wrong, and leaves nothing then.
 */
int window_begin(struct window_ctx *w, struct target *t);
/* Closes t's window: host file, device data, info.json; says its counts. */
int window_end(struct window_ctx *w, struct target *t,
	       const struct window_losses *wl);
/* Drops t's window begun in a start that failed: its directory goes. */
void window_abort(struct window_ctx *w, struct target *t);

#endif
