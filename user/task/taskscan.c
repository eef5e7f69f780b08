// SPDX-License-Identifier: MIT
/* The tasks msprof could attach to, as /proc shows them. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/growarr.h"
#include "ctl_lock.h"
#include "proc/procfs.h"
#include "target.h"
#include "taskscan.h"

/* The kernel's PID_MAX_LIMIT: /proc cannot list more processes. */
#define SCAN_MAX_PIDS (4u << 20)

static int cmp_pid(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* /proc's processes, sorted (readdir's order is the kernel's choice). */
static int list_pids(int **pids, size_t *n)
{
	size_t cap = 0;
	struct dirent *de;
	int *slot, err = 0;
	DIR *d;

	*pids = NULL;
	*n = 0;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while (*n < SCAN_MAX_PIDS && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		slot = growarr_push((void **)pids, n, &cap, sizeof(int));
		if (!slot) {
			err = -ENOMEM;
			break;
		}
		*slot = (int)pid;
	}
	closedir(d);
	if (!err)
		qsort(*pids, *n, sizeof(int), cmp_pid);
	return err;
}

/* A user process other than the host's init: 0, else -EPERM or -errno. */
static int user_process(int pid)
{
	bool kthread, init;
	int err = procfs_is_kthread(pid, &kthread);

	if (!err)
		err = procfs_is_host_init(pid, &init);
	return err ?: (kthread || init ? -EPERM : 0);
}

/* 0 and row filled if pid has a socket; else why not. */
static int probe(int pid, struct target *t, struct task_row *row)
{
	gid_t gid;
	int err;

	err = user_process(pid);
	if (!err)
		err = target_init(t, pid) ?: t->sock.err;
	if (err)
		return err;
	if (!t->sock.is_socket)
		return -ENOENT;
	memset(row, 0, sizeof(*row));
	row->host_pid = pid;
	row->ns_pid = t->ns_pid;
	memcpy(row->comm, t->comm, sizeof(row->comm));
	err = procfs_owner(pid, &row->uid, &gid);
	if (err)
		return err;
	row->rank_id = procfs_rank_id(pid);
	row->held = ctl_lock_holder(pid, t->ns_pid, &row->holder);
	/* Gone since: its row would be a guess. */
	return procfs_alive(pid) ? 0 : -ESRCH;
}

/* pid started at start, and root at root_start: 0, else -ESRCH or -errno. */
static int same_processes(int pid, unsigned long long start, int root,
			  unsigned long long root_start)
{
	unsigned long long now;
	int err = procfs_start_time(pid, &now);

	if (!err && now != start)
		err = -ESRCH;
	if (!err)
		err = procfs_start_time(root, &now);
	return err ?: (now == root_start ? 0 : -ESRCH);
}

/*
 * pid is root's descendant: the same two processes before the parents'
 * walk and after the probe, so the walk and the row are of one process
 * each, whatever pids were reused meanwhile.  The walk (status, which
 * never waits on the process) goes first too: a process outside the job
 * whose stat does not answer is none of the job's business.
 */
static int probe_descendant(int pid, int root, unsigned long long root_start,
			    struct target *t, struct task_row *row)
{
	unsigned long long start;
	int err;

	if (!procfs_is_descendant(pid, root))
		return -ESRCH;
	err = procfs_start_time(pid, &start) ?:
	      same_processes(pid, start, root, root_start);
	if (!err && !procfs_is_descendant(pid, root))
		err = -ESRCH;
	return err ?: probe(pid, t, row) ?:
	       same_processes(pid, start, root, root_start);
}

/*
 * A process whose reads did not answer is passed to fn as a row of its
 * own (err set), to be said; any other failure is none of fn's business.
 */
static int visit(int pid, int root, unsigned long long root_start,
		 struct target *t, taskscan_fn fn, void *ctx)
{
	struct task_row row;
	int err = root > 0 ? probe_descendant(pid, root, root_start, t, &row) :
		  probe(pid, t, &row);

	/* A signal msprof takes ends the walk: every read would end at once. */
	if (err == -EINTR)
		return err;
	if (err == -ETIMEDOUT) {
		memset(&row, 0, sizeof(row));
		row.host_pid = pid;
		row.err = err;
	} else if (err) {
		return 0;
	}
	return fn(&row, ctx);
}

int taskscan_each(int root, unsigned long long root_start,
		  unsigned int budget_ms, taskscan_fn fn, void *ctx, size_t *left)
{
	uint64_t until = clock_ns(CLOCK_MONOTONIC) + (uint64_t)budget_ms * 1000000;
	struct target *t;
	int *pids, ret = 0;
	size_t i, n;

	*left = 0;
	/* Large (its paths): one for the whole walk, off the stack. */
	t = malloc(sizeof(*t));
	if (!t)
		return -ENOMEM;
	ret = list_pids(&pids, &n);
	for (i = 0; !ret && i < n; i++) {
		if (clock_ns(CLOCK_MONOTONIC) >= until) {
			*left = n - i;
			ret = -ETIME;
			break;
		}
		ret = visit(pids[i], root, root_start, t, fn, ctx);
	}
	free(pids);
	free(t);
	return ret;
}
