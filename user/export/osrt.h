/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_EXPORT_OSRT_H
#define MSPROF_EXPORT_OSRT_H

/*
 * A window's OS runtime calls (--host-sys=osrt), as the export shows them:
 * from the host file's MSPROF_REC_OSRT records every syscall and pthread
 * call (the blocking ones beyond msprof's too), counted per call and
 * thread, with the driver ioctls, which stand for their syscalls; and
 * from msprof's host_syscall.data and host_pthreadcall.data, read as
 * Huawei's analysis reads them, its os_runtime_statistic rows.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "idmap.h"
#include "strtab.h"

/* One call's name and thread, as our records count them. */
struct osrt_stat {
	uint64_t count;
	uint64_t sum_ns, max_ns, min_ns;
	uint64_t blocked_ns;	/* a pthread call's time in syscalls */
	uint32_t tid;		/* as the task sees itself */
	uint32_t id;		/* the syscall's number; the function's API id */
	uint8_t what;		/* OSRT_SYSCALL, OSRT_PTHREAD */
	bool ioctl;		/* a driver's ioctls: their own records */
};

/*
 * A row of os_runtime_statistic as msprof's analysis makes it: its times
 * are the doubles its SQLite sums (ns), added in the order it adds them.
 */
struct osrt_msprof_row {
	uint32_t name;		/* in osrt_set.names */
	uint32_t tid_text;	/* the thread as the line says it, in names */
	bool tid_number;	/* it reads as a number: SQLite's INTEGER */
	uint64_t tid;
	uint64_t count;
	double sum, max, min;
};

struct osrt_set {
	struct osrt_stat *stats;
	size_t nstats, cap_stats;
	struct idmap by_call;	/* (what, id, tid) -> stats index */
	struct idmap ns_tids;	/* a thread as msprof sees it -> as the task does */
	struct strtab names;	/* syscall names; the msprof rows' names and threads */
	struct idmap sysnames;	/* a syscall's number -> names id */
	uint64_t records;	/* syscalls and pthread calls */
	/* os_runtime_statistic, largest total first; total: all its rows' */
	struct osrt_msprof_row *rows;
	size_t nrows, cap_rows;
	double total;
	bool files;		/* msprof's text files were there */
};

/*
 * Keeps one MSPROF_REC_OSRT record (len bytes, as recfile checked), or a
 * driver's ioctl; *s made at the first.
 */
int osrt_add(struct osrt_set **s, const void *body, size_t len);
int osrt_add_ioctl(struct osrt_set **s, uint32_t tid, uint64_t start_ns,
		   uint64_t end_ns);
/*
 * Once the host file is read: msprof's rows from the text files in the
 * PROF_ directory dirfd (pid: info.json's, for a line that names no
 * thread), our counts in their order.  A window without osrt is left
 * with *s NULL.
 */
int osrt_finish(struct osrt_set **s, int dirfd, uint64_t pid);
void osrt_free(struct osrt_set *s);

/* Whether the window recorded osrt (records or msprof's files). */
bool osrt_on(const struct osrt_set *s);
/* A syscall's name (syscall_<nr> where the window names none); "ioctl". */
const char *osrt_syscall_name(const struct osrt_set *s, uint32_t id,
			      char *buf, size_t len);
/* The thread msprof knows as tid, as the task knows it. */
uint32_t osrt_ns_tid(const struct osrt_set *s, uint32_t tid);

/* osrt_msprof.c: msprof's rows, from the text files in host/data. */
int osrt_msprof_load(struct osrt_set *s, int dirfd, uint64_t pid);

#endif
