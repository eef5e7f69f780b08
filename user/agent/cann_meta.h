/* SPDX-License-Identifier: MIT */
/*
 * The metadata a runtime writes beside a device's raw data (device_<N>/):
 * info.json.N, sample.json, start_info.N, end_info.N, host_start.log.N and
 * dev_start.log.N, which pair the device's counter with the host's clock.
 */
#ifndef MSPROF_AGENT_CANN_META_H
#define MSPROF_AGENT_CANN_META_H

#include <stdint.h>

#include "common/clock.h"

#pragma GCC visibility push(hidden)

struct cann_meta {
	unsigned int device;
	unsigned int hwts_mhz;		/* the device counter's rate */
	struct clock_pair start;	/* the window's START */
	struct clock_pair end;		/* its STOP */
	uint64_t dev_raw_ns;		/* CLOCK_MONOTONIC_RAW, read with... */
	uint64_t dev_cnt;		/* ...the device counter, at START */
};

/* Writes them into dir (device_<N>/, an fd).  0 or -errno. */
int cann_meta_write(int dir, const struct cann_meta *m);

#pragma GCC visibility pop

#endif
