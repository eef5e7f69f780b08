/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_TASKLIST_H
#define MSPROF_TASKLIST_H

#include <stddef.h>
#include <stdio.h>

/*
 * --list: a header, then one tab-separated row per task msprof could
 * attach to, by host pid: PID NSPID USER COMMAND RANK_ID HELD_BY
 * (docs/msprof.1).  A process whose reads did not answer is named in a
 * line of its own on stderr, and the list ends with -ETIMEDOUT.
 */
int tasklist_print(FILE *fp);
/*
 * --job=<job>: adds job and each of its descendants that has a socket to
 * pids[*npids] (those already there kept once, MSPROF_MAX_PIDS at most);
 * says why when there is no such process or none of them.  *start: when
 * job started (procfs_start_time), taken before its ranks were.
 */
int tasklist_job(int job, unsigned long long *start, int *pids, int *npids);
/*
 * Calls fn(pid, ctx) for job and each of its descendants that has a
 * socket, while job is the process that started at start (none once its
 * pid names another); the first non-zero return of fn ends the walk with
 * it, and a scan past TASKSCAN_BUDGET_MS with -ETIME (*left: the processes
 * not looked at).  A descendant whose reads did not answer is said in a
 * line and passed over.
 */
int tasklist_each_rank(int job, unsigned long long start,
		       int (*fn)(int pid, void *ctx), void *ctx, size_t *left);

#endif
