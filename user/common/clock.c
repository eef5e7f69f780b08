// SPDX-License-Identifier: MIT
#include "clock.h"

/* Enough for one read in a handful not to be slowed by a VM exit or a preemption. */
#define CLOCK_PAIR_TRIES 8

uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The raw reading goes between two monotonic ones and is paired with their
 * midpoint, from the try whose bracket is the tightest.  A single read of
 * each is off by whatever delayed the second (under a VM each read of an
 * emulated clock source may exit to the hypervisor): the export takes that
 * gap for drift between the clocks and misplaces the runtime's host records
 * by it, which matters once it is as long as the calls it matches them to.
 */
void clock_pair_now(struct clock_pair *c)
{
	uint64_t m0, m1, raw, best = UINT64_MAX;
	int i;

	for (i = 0; i < CLOCK_PAIR_TRIES && best; i++) {
		m0 = clock_ns(CLOCK_MONOTONIC);
		raw = clock_ns(CLOCK_MONOTONIC_RAW);
		m1 = clock_ns(CLOCK_MONOTONIC);
		if (m1 - m0 >= best)
			continue;
		best = m1 - m0;
		c->mono_ns = m0 + best / 2;
		c->raw_ns = raw;
	}
	c->real_ns = clock_ns(CLOCK_REALTIME);
}
