/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_EXPORT_HOSTSYS_H
#define MSPROF_EXPORT_HOSTSYS_H

/*
 * A window's host system data (--host-sys, --host-sys-usage): msprof's
 * raw text files in host/data read back into the rows its Python analysis
 * derives from them (docs/output.md, "Host system data"), for the CPU,
 * Memory, Network and Disk Usage tracks, the eight CSVs and the db tables.
 * Every line is the file's: a line that is not what the format says is
 * skipped, counted once as a problem of its file.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profdata;

/* Rows over [start, end), times in the files' CLOCK_MONOTONIC_RAW ns. */
struct hs_cpu_row {
	uint64_t start, end;
	int32_t cpu;		/* HS_CPU_AVG: the average over all CPUs */
	double usage;		/* % */
};
#define HS_CPU_AVG	(-1)

struct hs_mem_row {
	uint64_t start, end;
	double usage;		/* % of memoryTotal, the later sample's */
};

struct hs_net_row {
	uint64_t start, end;
	double usage;		/* % of the last counted interface's speed */
	double speed;		/* KB/s, all counted interfaces */
};

struct hs_disk_row {
	uint64_t start, end;
	double read, write;	/* KB/s */
	double usage;		/* iotop's IO % */
};

/* A process of --host-sys-usage, over its samples. */
struct hs_proc {
	int pid;
	char name[16];		/* its first row's ProcessName, of cpu and of mem */
	char mem_name[16];
	double cpu_sum;		/* Σ over samples of (utime+stime+cutime+cstime) / Σ cpu line */
	uint64_t cpu_n;
	int64_t size, resident, shared;	/* sums of pages */
	uint64_t mem_n;
};

#define HS_NETCARDS	32

/* Which raw files the window has (non-empty), msprof's export's test. */
enum {
	HS_CPU = 1, HS_MEM = 2, HS_NET = 4, HS_DISK = 8,
	HS_SYS_CPU = 16, HS_SYS_MEM = 32, HS_PID_CPU = 64, HS_PID_MEM = 128,
};

struct hostsys_data {
	unsigned int files;
	int64_t offset_ns;	/* epoch ns - raw ns, as start_info says */
	/* info.json's */
	long cpu_nums, clk_tck;
	uint64_t mem_total_kb;
	unsigned int ncards;
	struct {
		char name[16];
		long speed;	/* Mb/s */
	} card[HS_NETCARDS];
	long disk_freq;		/* sample.json's host_disk_freq; 0: none */

	struct hs_cpu_row *cpu;
	size_t ncpu, capcpu;
	struct hs_mem_row *mem;
	size_t nmem, capmem;
	struct hs_net_row *net;
	size_t nnet, capnet;
	struct hs_disk_row *disk;
	size_t ndisk, capdisk;
	struct hs_proc *procs;	/* by pid */
	size_t nprocs, capprocs;
	double sys_cpu[10];	/* sums of /proc/stat's fields, all lines */
	int64_t sys_mem[9];	/* sums of sys_mem's fields */
	uint64_t sys_mem_n;
	char sys_mem_unit[8];
};

/* Reads the window's host system files into p->hostsys (NULL: none). */
int hostsys_load(struct profdata *p);
void hostsys_free(struct hostsys_data *h);
/* A raw time of h as msprof's epoch ns. */
static inline uint64_t hostsys_epoch(const struct hostsys_data *h, uint64_t raw)
{
	return raw + (uint64_t)h->offset_ns;
}

#endif
