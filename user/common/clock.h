/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_CLOCK_H
#define MSPROF_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Clock readings taken together, so the clocks can be related later: mono
 * and raw as one instant, real within microseconds of it. */
struct clock_pair {
	uint64_t mono_ns;	/* CLOCK_MONOTONIC, the clock of every record */
	uint64_t real_ns;	/* CLOCK_REALTIME */
	uint64_t raw_ns;	/* CLOCK_MONOTONIC_RAW, which msprof's tools read */
};

uint64_t clock_ns(clockid_t id);
void clock_pair_now(struct clock_pair *c);

#endif
