// SPDX-License-Identifier: MIT
#include "clock.h"

uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void clock_pair_now(struct clock_pair *c)
{
	c->mono_ns = clock_ns(CLOCK_MONOTONIC);
	c->real_ns = clock_ns(CLOCK_REALTIME);
	c->raw_ns = clock_ns(CLOCK_MONOTONIC_RAW);
}
