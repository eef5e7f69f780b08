/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_OVERLAP_H
#define MSPROF_OVERLAP_H

#include <stdbool.h>
#include <stdint.h>

#include "profdata.h"

/*
 * msprof's Overlap Analysis of a device's time: what computes, what
 * communicates, communication no computing hides, and the rest of the
 * device's busy span.  The values are ENUM_OVERLAP_ANALYSIS_TYPE's ids
 * and the timeline thread ids alike.
 */
enum overlap_kind {
	OVERLAP_COMPUTE = 0,
	OVERLAP_COMMUNICATION = 1,
	OVERLAP_COMM_NOT_OVERLAPPED = 2,
	OVERLAP_FREE = 3,
};

/* The timeline's name: "Computing", "Communication", ..., "Free". */
const char *overlap_name(enum overlap_kind kind);

/* A task that counts as computing (and has a COMPUTE_TASK_INFO row). */
bool overlap_is_compute(const struct profdata *p, const struct devtask *t);

/* A collective's task (Task Type HCCL): communication. */
bool overlap_is_comm(const struct profdata *p, const struct devtask *t);

/*
 * Hands fn each interval of every device, device by device, each device's
 * in ascending start order.  Computing is the union of the compute tasks,
 * Communication that of the collectives, Communication(Not Overlapped)
 * what of it no computing hides, Free what of the device's span, from its
 * first task's start to its last task's end, neither computes nor
 * communicates.  Computing, Not Overlapped and Free tile the span:
 * msprof-analyze adds them up for a step's time.  A non-zero return of fn
 * ends the walk with it.
 */
typedef int (*overlap_fn)(uint32_t device, enum overlap_kind kind,
			  uint64_t start_ns, uint64_t end_ns, void *ctx);
int overlap_each(const struct profdata *p, overlap_fn fn, void *ctx);

#endif
