/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_SYSTARGET_H
#define MSPROF_SYSTARGET_H

/*
 * One target's part of the host-sys sampler (sampler.h): what it reads of
 * the task each period and the files it writes them to, in its PROF_
 * directory.  Only the sampler's thread calls these.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/fsutil.h"
#include "common/hostsys.h"
#include "sysresult.h"
#include "sysfile.h"
#include "sysfmt.h"
#include "sysread.h"

/* What one period read once for every target. */
struct sys_shared {
	uint64_t raw_ns;	/* CLOCK_MONOTONIC_RAW: msprof's clock for these files */
	uint64_t real_ns;	/* iotop's time of day */
	const char *uptime;	/* /proc/uptime's line, '\n' ended; NULL: none */
	size_t uptime_len;
	const char *netdev;	/* /proc/net/dev; NULL: none */
	size_t netdev_len;
	bool delayacct;		/* the kernel keeps tasks' I/O delays */
	long clk_tck;
};

/* --host-sys-usage's system-wide reads of one period. */
struct sys_usage_shared {
	uint64_t raw_ns;
	const char *cpus;	/* /proc/stat's leading cpu lines; NULL: none */
	size_t cpus_len;
	const char *total;	/* the first of them */
	size_t total_len;
	const char *meminfo;	/* NULL: none */
	size_t meminfo_len;
};

/* A process's --host-sys-usage files in one target's directory. */
struct sys_pidfiles {
	int pid;
	struct sysfile cpu, mem;
};

struct sys_target {
	int pid;
	int dir;			/* the PROF_ directory, ours (a dup) */
	unsigned int items, usage;	/* hostsys_conf's masks */
	bool gone;			/* its samples ended: it exited */
	struct sysread_task task;	/* its threads: cpu, disk */
	struct sysread_file statm, io;
	struct sysfile cpu, mem, net, disk, sys_cpu, sys_mem;
	struct sys_pidfiles *pf;	/* by pid */
	size_t npf, cappf;
	struct fsutil_budget budget;
	uint64_t flushed_ns;		/* its buffers last written out */
	/* disk: the last sample's counters, for the rates */
	bool have_io;
	uint64_t io_ns, read_bytes, write_bytes, blkio_ticks;
	char prio[16], comm[16];
	unsigned int uid;
	struct sys_result res;
};

/*
 * Opens what pid's samples need and prepares its files (made at the
 * first sample); dir is taken (closed by systarget_close).
 */
int systarget_open(struct sys_target *t, int pid, int dir,
		   const struct hostsys_conf *c, struct sysread_fds *fds);
/* One period of cpu, mem, disk and network; scratch: a chunk's room. */
void systarget_sample(struct sys_target *t, const struct sys_shared *sh,
		      struct sysread_fds *fds, struct sysbuf *scratch);
/* One period of host_sys_cpu and host_sys_mem. */
void systarget_usage_sys(struct sys_target *t, const struct sys_usage_shared *u,
			 struct sysbuf *scratch);
/* Process pid's blocks of one period (payloads; len 0: none). */
void systarget_usage_proc(struct sys_target *t, int pid, uint64_t raw_ns,
			  const struct sysbuf *cpu, const struct sysbuf *mem,
			  struct sysbuf *scratch);
/* A process that went: its files' buffers written, none kept. */
void systarget_usage_gone(struct sys_target *t, int pid);
/* How a target's files end: written whole, left as they are, or removed. */
enum systarget_end { SYSTARGET_WRITE, SYSTARGET_LEAVE, SYSTARGET_DISCARD };

/* Closes everything as how says; r: its account. */
void systarget_close(struct sys_target *t, enum systarget_end how,
		     struct sysread_fds *fds, struct sys_result *r);

#endif
