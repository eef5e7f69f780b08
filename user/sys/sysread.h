/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_SYSREAD_H
#define MSPROF_SYSREAD_H

/*
 * The /proc reads of the host-sys sampler (sampler.h), within bounds: a
 * task's threads (at most SYSREAD_THREADS_MAX), the system's processes
 * (SYSREAD_PIDS_MAX), each line read into a fixed buffer.  Files are kept
 * open between samples and read again from offset 0, up to a descriptor
 * budget shared by the whole sampler (sysread_fd_budget); past it a file
 * is opened for each read.  Every byte read is the task's.
 *
 * A read of a task's stat or io waits, killably, while the task's exec is
 * stuck (docs/security.md, "Host system data"): these reads are made by the
 * sampler's own thread, never by the prompt's.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define SYSREAD_THREADS_MAX	4096
#define SYSREAD_PIDS_MAX	4096
/* A stat line is about 300 bytes; 52 fields of 20 digits fit twice. */
#define SYSREAD_LINE_MAX	2048
/* proc(5)'s delayacct_blkio_ticks, numbered from 0 (the pid). */
#define SYSREAD_STAT_BLKIO	41

/* Descriptors the sampler may keep open, all its files together. */
struct sysread_fds {
	unsigned int kept, max;
};

/*
 * Sets how many descriptors the sampler may keep: msprof's soft limit is
 * raised to the hard one (at most 65536, as root may) and the sampler
 * takes what leaves 512 for the rest of msprof.
 */
void sysread_fd_budget(struct sysread_fds *f);

/* A file read again and again: its fd kept if the budget allowed. */
struct sysread_file {
	int fd;			/* -1: not kept */
};

/*
 * Reads dir's name (a /proc directory fd) from offset 0 into buf (cap,
 * NUL-ended: at most cap - 1 bytes); its length, or -errno: -ESRCH or
 * -ENOENT once the process or thread is gone, -E2BIG if the file is longer.
 */
ssize_t sysread_at(struct sysread_file *rf, struct sysread_fds *fds, int dir,
		   const char *name, char *buf, size_t cap);
void sysread_close(struct sysread_file *rf, struct sysread_fds *fds);

/* One thread of a task: its last stat line, kept while it does not run. */
struct sysread_thread {
	int tid;
	bool seen;		/* in the last scan of the task's threads */
	struct sysread_file stat, sched;
	char sched_text[48];	/* its schedstat when line was read */
	char *line;		/* its last stat line, cleaned; NULL: none yet */
	uint16_t len;
	uint32_t blkio;		/* its block I/O delays (clock ticks), from line */
	uint64_t runtime;	/* ns on a CPU, as its schedstat said last */
	bool active;		/* it ran between its last two reads */
	bool fresh;		/* read in this update */
};

/* A task's threads, as the sampler reads them. */
struct sysread_task {
	int pid;
	int proc_fd;		/* /proc/<pid>: never another process's */
	int task_fd;		/* /proc/<pid>/task */
	unsigned long long nlink;	/* task_fd's, at the last scan */
	bool rescan;		/* a thread went: scan again */
	struct sysread_thread *v;
	size_t n, cap;
	unsigned int left_out;	/* threads past SYSREAD_THREADS_MAX at the last scan */
	bool has_clock;
	clockid_t clock;	/* the task's process CPU clock */
	bool gated;		/* exited_ns known: the idle need not be read */
	uint64_t exited_ns;	/* the task's CPU time beyond its threads' */
};

/* Opens /proc/<pid> and its task directory: -ESRCH if it is gone. */
int sysread_task_open(struct sysread_task *t, int pid);
void sysread_task_close(struct sysread_task *t, struct sysread_fds *fds);
/*
 * Brings t's threads up to date: the task directory scanned again if its
 * link count changed or a thread went, then each thread's stat line read
 * again if its schedstat says it ran since (a thread that did not run has
 * the same times, CPU and delays); when the task's CPU time says only
 * those that ran last time ran, the others are not read at all.  -ESRCH
 * once the task is gone.
 */
int sysread_task_update(struct sysread_task *t, struct sysread_fds *fds);

#endif
