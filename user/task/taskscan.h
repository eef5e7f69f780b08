/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_TASKSCAN_H
#define MSPROF_TASKSCAN_H

#include <stddef.h>
#include <sys/types.h>

/* What msprof --list says of a task it could attach to. */
struct task_row {
	int host_pid;
	int ns_pid;		/* the pid it sees itself as */
	uid_t uid;
	char comm[16];
	int rank_id;		/* RANK_ID, else RANK; -1 if neither */
	int held;		/* 1 if a controller holds it, 0 if none, -errno */
	int holder;		/* that controller's pid here, 0 if not visible */
	/*
	 * 0; -ETIMEDOUT for a process passed over because its /proc entries
	 * or its home did not answer (procread.h): only host_pid is set.
	 */
	int err;
};

/*
 * Calls fn for every task /proc shows that has a dynamic profiling socket
 * (target_init: in its home as its own root holds it), in host pid order;
 * with root > 0 only root and its descendants, and only while root is the
 * process that started at root_start (procfs_start_time): a pid reused
 * meanwhile, root's or a descendant's, brings in no other process.  A process that is gone,
 * unreadable, a kernel thread or the host's init is passed over without a
 * word; one whose reads did not answer (stuck in an exec, its home on a
 * FUSE mount whose daemon never answers) is passed to fn with row->err
 * -ETIMEDOUT, once its first read passed the deadline (the others are not
 * tried).  Nothing is created, written, locked or connected to.  The first
 * non-zero return of fn ends the walk with it.  Each process's reads are
 * bounded, but a user may run many whose reads all take their bound: past
 * budget_ms the walk ends with -ETIME, *left the processes not looked at.
 */
#define TASKSCAN_BUDGET_MS 60000
typedef int (*taskscan_fn)(const struct task_row *row, void *ctx);
int taskscan_each(int root, unsigned long long root_start,
		  unsigned int budget_ms, taskscan_fn fn, void *ctx, size_t *left);

#endif
