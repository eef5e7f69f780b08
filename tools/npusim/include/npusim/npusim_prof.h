/* SPDX-License-Identifier: MIT */
/*
 * The hooks through which a profiler sees npusim's device, the way a real
 * runtime's device trace reaches its profiling library: each task's
 * start and end as the device's own counter stamped them, and that
 * counter read beside the host's clock.  A profiler looks them up with
 * dlsym() so it needs no link-time dependency on npusim.
 */
#ifndef NPUSIM_PROF_H
#define NPUSIM_PROF_H

#include <stdint.h>

/*
 * The device counter ticks at this rate (its hwts_frequency), from an
 * offset of its own per device: as if each device booted at another time.
 */
#define NPUSIM_HWTS_MHZ	50

/* What ran: the engine a real device would have used. */
enum npusim_task_kind {
	NPUSIM_TASK_AI_CORE,	/* matmul */
	NPUSIM_TASK_AI_VECTOR,	/* vector_add, relu */
	NPUSIM_TASK_MEMCPY,	/* aclrtMemcpyAsync: the DMA engine */
	NPUSIM_TASK_HOST,	/* npusimLaunchHostTask (HCCL's copies) */
};

struct npusim_task_record {
	uint32_t device;
	uint32_t stream;	/* stream id, unique per device */
	uint16_t task_id;	/* per stream, from 0, wrapping after 65535 */
	uint16_t flip;		/* the stream's wraps before this task */
	uint32_t kind;		/* enum npusim_task_kind */
	uint64_t start_cnt;	/* device counter */
	uint64_t end_cnt;
	/* The counter when the stream's ids wrapped, at this task; 0: no wrap. */
	uint64_t flip_cnt;
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

/*
 * Device's counter and CLOCK_MONOTONIC_RAW (ns), read together; 0, or
 * -EINVAL for a device npusim cannot have.
 */
int npusimReadDeviceClock(uint32_t device, uint64_t *raw_ns, uint64_t *cnt);

#define NPUSIM_SET_TASK_OBSERVER_SYM	"npusimSetTaskObserver"
#define NPUSIM_READ_DEVICE_CLOCK_SYM	"npusimReadDeviceClock"

#endif
