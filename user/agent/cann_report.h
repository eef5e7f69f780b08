/* SPDX-License-Identifier: MIT */
/*
 * The agent as a runtime's profiling library (msprof/cann_report.h): what
 * a window's reports become, host/data/ of its PROF_ directory.
 */
#ifndef MSPROF_AGENT_CANN_REPORT_H
#define MSPROF_AGENT_CANN_REPORT_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

struct cann_report_stats {
	uint64_t records;	/* written by the last flush */
	uint64_t lost;		/* found their buffer full, or none left */
	uint64_t refused;	/* not a record (magic, level, size) */
};

/* Opens a window with the MSPROF_REPORT_* switches given; older records go. */
void cann_report_start(uint32_t switches);
/* Closes it: reports from now on cost a flag check and are dropped. */
void cann_report_stop(void);
/*
 * Writes the window's records under run/host/data/, with the
 * dictionaries (nothing at all when there were none), and forgets them.
 * 0 or -errno; *st says what was written and lost.
 */
int cann_report_flush(const char *run, struct cann_report_stats *st);

#pragma GCC visibility pop

#endif
