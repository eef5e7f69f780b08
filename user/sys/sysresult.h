/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_SYSRESULT_H
#define MSPROF_SYSRESULT_H

/* What the host-sys sampler tells of one target's window (sampler.h). */

#include <stdbool.h>

/* What one target's host data files may take, all together. */
#define SYS_SAMPLER_BYTES_MAX	(4ull << 30)

/* What a target's window got from the sampler. */
struct sys_result {
	unsigned long long samples;	/* periods it was sampled in */
	unsigned long long bytes;	/* written, all its files */
	unsigned int threads_max;	/* most threads one sample read */
	unsigned int threads_left_out;	/* past the cap, in one sample at most */
	unsigned int procs_left_out;	/* --host-sys-usage: the same for processes */
	bool ended;			/* it exited: its samples ended before the stop */
	int err;			/* its first failure (-ENOSPC: the budget) */
};

#endif
