/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_SYSUSAGE_H
#define MSPROF_SYSUSAGE_H

/*
 * --host-sys-usage: every process of the system, as msprof's collector
 * scans them each period (at most SYSREAD_PIDS_MAX; /proc scanned again
 * only when its link count, the number of processes, changed or one
 * went), and the blocks of its per-process files.
 */
#include <stdbool.h>
#include <stddef.h>

#include "sysfmt.h"
#include "sysread.h"

struct sysusage_proc {
	int pid;
	bool seen;
	struct sysread_file stat, statm, comm;
};

struct sysusage {
	int proc_fd;		/* /proc */
	unsigned long long nlink;
	bool rescan;
	struct sysusage_proc *v;	/* by pid */
	size_t n, cap;
	unsigned int left_out;	/* processes past the cap at the last scan */
};

int sysusage_open(struct sysusage *u);
void sysusage_close(struct sysusage *u, struct sysread_fds *fds);
/* Brings the list of processes up to date; gone(pid) for each that went. */
int sysusage_scan(struct sysusage *u, struct sysread_fds *fds,
		  void (*gone)(int pid, void *ctx), void *ctx);

/*
 * Process i's payloads: cpu (its stat line, ProcessName, the total cpu
 * line of /proc/stat, cpu_total) and mem (its statm line, ProcessName).
 * false if it went since the scan (it is then scanned for again).
 */
bool sysusage_read(struct sysusage *u, size_t i, struct sysread_fds *fds,
		   const char *cpu_total, size_t cpu_len,
		   struct sysbuf *cpu, struct sysbuf *mem);

#endif
