/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PROFMETA_H
#define MSPROF_PROFMETA_H

#include <stdbool.h>
#include <stdint.h>

#include "common/clock.h"

/* What a PROF_ directory says of its window, apart from the records. */
struct profmeta {
	int pid;		/* the task, as msprof saw it (0: unknown yet) */
	int ns_pid;		/* the task as it sees itself */
	char comm[64];
	int rank_id;		/* RANK_ID, else RANK, of the task; -1: none */
	char hostname[256];
	char host_uid[64];	/* hostUid: tells hosts apart when merging */
	unsigned int window;	/* 1 for the first window of a session */
	struct clock_pair start;	/* taken as the gate opened */
	struct clock_pair end;		/* as it closed; all 0: never stopped */
	unsigned long long lost_events;	/* dropped by the kernel side */
	bool incomplete;		/* not closed by a stop */
	/*
	 * Huawei's msprof wrote it alone (no file of ours): its clock is the
	 * runtime's raw ns, which mono_ns then holds too.
	 */
	bool cann_only;
	char incomplete_reason[448];
	/*
	 * The raw clock's ns per monotonic ns over the window, << 48 (0: the
	 * same); profmeta_read() sets it from start and end, which is why
	 * converting millions of times costs a multiplication each.
	 */
	uint64_t rate_q48;
};

/*
 * Reads the metadata of the PROF_ directory open as dirfd.  -ENOENT: not a
 * window (none of its metadata files); a window cut short before its end
 * reads as incomplete.  Other errors name a metadata file the reader could
 * not take (profmeta_strerror).
 */
int profmeta_read(struct profmeta *m, int dirfd);
void profmeta_strerror(char *buf, size_t len, int err);

/*
 * A CLOCK_MONOTONIC time of the window on msprof's scale: epoch ns as the
 * readers derive it from start_info (collectionTimeBegin and
 * clockMonotonicRaw), the monotonic clock's slew against the raw one
 * taken from the start and end pairs.
 */
uint64_t profmeta_epoch_ns(const struct profmeta *m, uint64_t mono_ns);
/* The task's pid as it sees itself (its runtime's view), else ours; 0: none. */
static inline uint64_t profmeta_task_pid(const struct profmeta *m)
{
	return (uint64_t)(m->ns_pid > 0 ? m->ns_pid : m->pid > 0 ? m->pid : 0);
}

/*
 * epoch ns − raw ns as start_info says it at file (collectionTimeBegin·1000
 * − clockMonotonicRaw): how msprof's tools place that directory's times;
 * -EPROTO when either is missing, or safe_read_small_beneath()'s error.
 */
int profmeta_start_offset(int dirfd, const char *file, int64_t *off_ns);
/* The same offset of the window, as profmeta_epoch_ns() applies it. */
int64_t profmeta_offset_ns(const struct profmeta *m);

#endif
