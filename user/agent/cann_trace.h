/* SPDX-License-Identifier: MIT */
/* A simulated device's trace, as a 910B runtime writes one (cann_trace.c). */
#ifndef MSPROF_AGENT_CANN_TRACE_H
#define MSPROF_AGENT_CANN_TRACE_H

#include <stdint.h>

#include "cann_meta.h"
#include "devdata.h"

#pragma GCC visibility push(hidden)

/*
 * Writes the tasks of b (struct npusim_task_record) that ran on
 * m->device, in b's order, under dir/device_<N>/, with m as its
 * metadata; *flips grows by the flip records written.  0 or -errno.
 */
int cann_trace_write(const char *dir, const struct cann_meta *m,
		     const struct rec_buf *b, uint64_t *flips);

#pragma GCC visibility pop

#endif
