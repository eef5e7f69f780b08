/* SPDX-License-Identifier: MIT */
/*
 * The hook through which a profiler sees npusim's device tasks, the way a
 * real runtime feeds its device trace to its profiling library.  A profiler
 * looks it up with dlsym() so it needs no link-time dependency on npusim.
 */
#ifndef NPUSIM_PROF_H
#define NPUSIM_PROF_H

#include <stdint.h>

struct npusim_task_record {
	uint32_t device;
	uint32_t stream;	/* stream id, unique per device */
	uint32_t task_id;	/* per device, increasing from 1 */
	uint32_t block_dim;	/* 0 for copies */
	uint32_t host_tid;	/* thread that made the launching call */
	uint64_t submit_ns;	/* CLOCK_MONOTONIC, taken inside that call */
	uint64_t start_ns;	/* CLOCK_MONOTONIC on the device thread */
	uint64_t end_ns;
	const char *name;	/* kernel name, or "MEMCPY_ASYNC"; valid during the call */
};

/*
 * Called on a device worker thread after each task completes.  Must be
 * quick and must not call back into npusim.
 */
typedef void (*npusim_task_observer_fn)(const struct npusim_task_record *rec,
					void *ctx);

/*
 * Installs fn (NULL removes it).  When it returns, no call to the previous
 * observer is still running, so its ctx may be freed.
 */
int npusimSetTaskObserver(npusim_task_observer_fn fn, void *ctx);

#define NPUSIM_SET_TASK_OBSERVER_SYM "npusimSetTaskObserver"

#endif
