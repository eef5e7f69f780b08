// SPDX-License-Identifier: MIT
/* --list and --job: the tasks msprof could attach to, printed or taken. */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/printable.h"
#include "options.h"
#include "proc/procfs.h"
#include "proc/procread.h"
#include "task/taskscan.h"
#include "tasklist.h"

struct listing {
	FILE *fp;
	unsigned int skipped;	/* processes whose reads did not answer */
};

static int print_row(const struct task_row *r, void *ctx)
{
	struct listing *l = ctx;
	char rank[16] = "-", held[16] = "-", comm[sizeof(r->comm)];
	FILE *fp = l->fp;
	struct passwd *pw;

	if (r->err) {
		/* Said where it happens: the rows so far come first. */
		fflush(fp);
		ERR("--list: pid %d skipped: %s", r->host_pid,
		    procread_strerror(r->err));
		l->skipped++;
		return 0;
	}
	pw = getpwuid(r->uid);
	printable_copy(comm, sizeof(comm), r->comm);

	if (r->rank_id >= 0)
		snprintf(rank, sizeof(rank), "%d", r->rank_id);
	/* Held, but by a controller this namespace cannot see, or unknown. */
	if (r->held > 0 && r->holder > 0)
		snprintf(held, sizeof(held), "%d", r->holder);
	else if (r->held)
		strcpy(held, "?");
	if (pw)
		fprintf(fp, "%d\t%d\t%s\t%s\t%s\t%s\n", r->host_pid, r->ns_pid,
			pw->pw_name, comm, rank, held);
	else
		fprintf(fp, "%d\t%d\t%u\t%s\t%s\t%s\n", r->host_pid, r->ns_pid,
			(unsigned int)r->uid, comm, rank, held);
	return 0;
}

int tasklist_print(FILE *fp)
{
	struct listing l = { .fp = fp };
	size_t left;
	int err;

	fputs("PID\tNSPID\tUSER\tCOMMAND\tRANK_ID\tHELD_BY\n", fp);
	err = taskscan_each(0, 0, TASKSCAN_BUDGET_MS, print_row, &l, &left);
	if (err == -ETIME) {
		fflush(fp);
		ERR("--list: %zu processes not looked at: the scan took its %d s (reading the others' /proc entries was slow)",
		    left, TASKSCAN_BUDGET_MS / 1000);
		return err;
	}
	if (err) {
		ERR("cannot list the tasks in /proc: %s", strerror(-err));
		return err;
	}
	/* A line that failed earlier left no errno worth naming. */
	if (fflush(fp))
		err = -errno;
	else if (ferror(fp))
		err = -EIO;
	if (err)
		ERR("cannot write the list: %s", strerror(-err));
	/* Each said above: the list is not all there is. */
	return err ?: l.skipped ? -ETIMEDOUT : 0;
}

struct rank_fn {
	int job;
	int (*fn)(int pid, void *ctx);
	void *ctx;
};

static int call_rank(const struct task_row *r, void *ctx)
{
	struct rank_fn *f = ctx;

	/* Not a rank anyone could reach: said, and the others taken. */
	if (r->err) {
		ERR("--job=%d: pid %d skipped: %s", f->job, r->host_pid,
		    procread_strerror(r->err));
		return 0;
	}
	return f->fn(r->host_pid, f->ctx);
}

int tasklist_each_rank(int job, unsigned long long start,
		       int (*fn)(int pid, void *ctx), void *ctx, size_t *left)
{
	struct rank_fn f = { .job = job, .fn = fn, .ctx = ctx };

	return taskscan_each(job, start, TASKSCAN_BUDGET_MS, call_rank, &f, left);
}

struct job {
	int *pids;
	int *npids;
	int found;
};

static int add_rank(int pid, void *ctx)
{
	struct job *j = ctx;
	int i;

	j->found++;
	for (i = 0; i < *j->npids && j->pids[i] != pid; i++)
		;
	if (i < *j->npids)
		return 0;
	if (*j->npids == MSPROF_MAX_PIDS)
		return -ENOSPC;
	j->pids[(*j->npids)++] = pid;
	return 0;
}

int tasklist_job(int job, unsigned long long *start, int *pids, int *npids)
{
	struct job j = { .pids = pids, .npids = npids };
	size_t left;
	int err;

	err = procfs_alive(job) ? procfs_start_time(job, start) : -ESRCH;
	if (err == -ESRCH) {
		ERR("--job=%d: no process with pid %d", job, job);
		return err;
	}
	if (err) {
		ERR("--job=%d: pid %d: %s", job, job, procread_strerror(err));
		return err;
	}
	err = tasklist_each_rank(job, *start, add_rank, &j, &left);
	if (err == -ETIME)
		ERR("--job=%d: %zu processes not looked at: the scan took its %d s, and its ranks may be among them",
		    job, left, TASKSCAN_BUDGET_MS / 1000);
	else if (err == -ENOSPC)
		ERR("--job=%d: more than %d processes to attach to", job,
		    MSPROF_MAX_PIDS);
	else if (err)
		ERR("--job=%d: cannot list its processes in /proc: %s", job,
		    strerror(-err));
	else if (!j.found)
		ERR("--job=%d: neither it nor a process it started has a profiling socket: start the ranks with PROFILING_MODE=dynamic in their environment",
		    job);
	return err ?: j.found ? 0 : -ENOENT;
}
