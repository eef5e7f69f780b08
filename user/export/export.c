// SPDX-License-Identifier: MIT
/* --export=on: every PROF_ directory under the given one into a timeline. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "export.h"
#include "common/printable.h"
#include "common/err.h"
#include "common/fsutil.h"
#include "profdata.h"
#include "common/proflayout.h"
#include "summary.h"
#include "common/testpoint.h"
#include "timeline.h"
#include "tstate.h"
#include "windows.h"

/*
 * The files an export writes into mindstudio_profiler_output/: a name,
 * stamped with the export's time unless it is fixed, and its writer.
 */
struct output_file {
	const char *base;
	const char *ext;
	bool stamped;
	int (*write)(FILE *fp, const struct profdata *p);
	/* Whether the window has its data (NULL: always written). */
	bool (*has)(const struct profdata *p);
};

static const struct output_file outputs[] = {
	{ "msprof", "json", true, timeline_write, NULL },
	{ "api_statistic", "csv", true, summary_api_statistic, NULL },
	{ "op_summary", "csv", true, summary_op_summary, NULL },
	{ "op_statistic", "csv", true, summary_op_statistic, NULL },
	{ "task_time", "csv", true, summary_task_time, NULL },
	{ "communication_statistic", "csv", true,
	  summary_communication_statistic, summary_has_communication },
	{ "python_call_site", "csv", true, summary_python_call_sites,
	  summary_has_python },
	{ "msprof_tx", "csv", true, summary_msprof_tx, summary_has_mstx },
	{ "thread_state", "csv", true, summary_thread_state, summary_has_tstate },
	{ "thread_off_cpu", "csv", true, summary_thread_off_cpu, summary_has_tstate },
	{ "os_runtime_statistic", "csv", true, summary_os_runtime_statistic,
	  summary_has_osrt },
	{ "osrt_statistic", "csv", true, summary_osrt_statistic,
	  summary_has_osrt_calls },
	{ "host_cpu_usage", "csv", true, summary_host_cpu_usage, summary_has_host_cpu },
	{ "host_mem_usage", "csv", true, summary_host_mem_usage, summary_has_host_mem },
	{ "host_network_usage", "csv", true, summary_host_network_usage,
	  summary_has_host_network },
	{ "host_disk_usage", "csv", true, summary_host_disk_usage, summary_has_host_disk },
	{ "cpu_usage", "csv", true, summary_cpu_usage, summary_has_cpu_usage },
	{ "process_cpu_usage", "csv", true, summary_process_cpu_usage,
	  summary_has_process_cpu },
	{ "process_mem", "csv", true, summary_process_mem, summary_has_process_mem },
	{ "sys_mem", "csv", true, summary_sys_mem, summary_has_sys_mem },
	{ "README", "txt", false, summary_readme, NULL },
};

#define NOUTPUTS (sizeof(outputs) / sizeof(outputs[0]))

/* Writes one output under a temporary name; tmp receives that name. */
static int write_temp(int ofd, const struct output_file *o, const char *name,
		      char *tmp, size_t len, const struct profdata *p)
{
	int err, fd = fsutil_create_temp_at(ofd, name, tmp, len);
	FILE *fp;

	if (fd < 0)
		return fd;
	fp = fdopen(fd, "w");
	if (!fp) {
		err = -errno;
		close(fd);
		unlinkat(ofd, tmp, 0);
		return err;
	}
	err = o->write(fp, p);
	if (!err && fflush(fp))	/* the reason, ENOSPC often, while errno holds it */
		err = -errno;
	if (!err && ferror(fp))
		err = -EIO;
	if (!err && fsync(fileno(fp)))
		err = -errno;
	if (fclose(fp) && !err)
		err = -errno;
	if (err)
		unlinkat(ofd, tmp, 0);
	return err;
}

/* One output written by a thread of its own. */
struct output_job {
	int ofd;
	const struct output_file *o;
	const char *name;
	char tmp[NAME_MAX + 1];
	const struct profdata *p;
	pthread_t thread;
	bool threaded;
	int err;
};

static void *run_job(void *arg)
{
	struct output_job *j = arg;

	j->err = write_temp(j->ofd, j->o, j->name, j->tmp, sizeof(j->tmp), j->p);
	return NULL;
}

/*
 * The outputs only read the window and each walks the host file on its
 * own, so they are written side by side: the timeline, by far the
 * largest, then takes the export's time alone.  A thread that cannot be
 * had is done here instead.  The first error, if any.
 */
static int run_jobs(struct output_job *jobs, size_t n)
{
	size_t i;
	int err = 0;

	for (i = 1; i < n; i++)
		jobs[i].threaded = !pthread_create(&jobs[i].thread, NULL,
						   run_job, &jobs[i]);
	run_job(&jobs[0]);
	for (i = 1; i < n; i++) {
		if (jobs[i].threaded)
			pthread_join(jobs[i].thread, NULL);
		else
			run_job(&jobs[i]);
	}
	for (i = 0; i < n; i++)
		err = err ?: jobs[i].err;
	return err;
}

/* "<base>_<stamp>.<ext>" or "<base>.<ext>". */
static void output_name(char *buf, size_t len, const struct output_file *o,
			const char *stamp)
{
	if (o->stamped)
		snprintf(buf, len, "%s_%s.%s", o->base, stamp, o->ext);
	else
		snprintf(buf, len, "%s.%s", o->base, o->ext);
}

/*
 * What an earlier export wrote: "<base>_<14 digits>.<ext>" or a slice of
 * one, "<base>_slice_<n>_<14 digits>.<ext>", of one of our outputs.
 */
static bool is_old_output(const char *entry)
{
	size_t i, n;

	for (i = 0; i < NOUTPUTS; i++) {
		const struct output_file *o = &outputs[i];
		const char *at = entry;

		n = strlen(o->base);
		if (!o->stamped || strncmp(at, o->base, n) || at[n] != '_')
			continue;
		at += n + 1;
		if (!strncmp(at, "slice_", 6)) {
			at += 6;
			n = strspn(at, "0123456789");
			if (!n || at[n] != '_')
				continue;
			at += n + 1;
		}
		if (strspn(at, "0123456789") == 14 && at[14] == '.' &&
		    !strcmp(at + 15, o->ext))
			return true;
	}
	return false;
}

struct stale {
	char (*keep)[NAME_MAX + 1];
	size_t nkeep;
};

static int remove_stale(int ofd, const char *entry, void *ctx)
{
	const struct stale *st = ctx;
	size_t i;

	if (!is_old_output(entry))
		return 0;
	for (i = 0; i < st->nkeep; i++)
		if (!strcmp(entry, st->keep[i]))
			return 0;
	/* A directory of ours (windows_output_dir_open): nothing here is followed. */
	if (unlinkat(ofd, entry, 0) && errno != ENOENT)
		return -errno;
	return 0;
}

/*
 * Every output under a temporary name first, then all renamed in: a
 * failed export leaves none of its files, and what an earlier export
 * wrote is replaced, not left beside for readers to count twice.
 */
static int write_outputs(int ofd, const char *label, const struct profdata *p)
{
	char names[NOUTPUTS][NAME_MAX + 1];
	struct output_job jobs[NOUTPUTS];
	struct stale st = { .keep = names };
	time_t now = time(NULL);
	char stamp[16];
	struct tm tm;
	size_t i, renamed, n = 0;
	int err;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	for (i = 0; i < NOUTPUTS; i++) {
		/* No file for data the window lacks: msprof writes none. */
		if (outputs[i].has && !outputs[i].has(p))
			continue;
		output_name(names[n], sizeof(names[n]), &outputs[i], stamp);
		jobs[n] = (struct output_job){
			.ofd = ofd, .o = &outputs[i], .name = names[n], .p = p,
		};
		n++;
	}
	st.nkeep = n;
	err = run_jobs(jobs, n);
	/* One line: a full disk fails them all alike. */
	for (i = 0; i < n && err; i++)
		if (jobs[i].err) {
			ERR("%s: not exported: cannot write %s/%s: %s",
			    label, PROFDIR_OUTPUT, names[i],
			    strerror(-jobs[i].err));
			break;
		}
	testpoint("export-before-rename");
	for (renamed = 0; renamed < n && !err; renamed++)
		if (renameat(ofd, jobs[renamed].tmp, ofd, names[renamed])) {
			err = -errno;
			ERR("%s: not exported: cannot rename into %s/%s: %s",
			    label, PROFDIR_OUTPUT, names[renamed], strerror(-err));
			break;
		}
	if (err) {
		/* The renamed ones too: all of an export or none of it. */
		while (n--)
			if (!jobs[n].err)
				unlinkat(ofd, n < renamed ? names[n] : jobs[n].tmp, 0);
		return err;
	}
	for (i = 0; i < n; i++)
		printf("%s/%s/%s\n", label, PROFDIR_OUTPUT, names[i]);
	err = fsutil_dir_for_each(ofd, remove_stale, &st);
	if (err)
		WARN("%s: an earlier export's files are left in %s: %s",
		    label, PROFDIR_OUTPUT, strerror(-err));
	return 0;
}

static int export_files(int dirfd, const char *label, const struct profdata *p)
{
	char why[128];
	bool made;
	int err, ofd;

	ofd = windows_output_dir_open(dirfd, PROFDIR_OUTPUT, &made);
	if (ofd < 0) {
		windows_output_dir_strerror(why, sizeof(why), PROFDIR_OUTPUT, ofd);
		ERR("%s: not exported: %s", label, why);
		return ofd;
	}
	err = write_outputs(ofd, label, p);
	close(ofd);
	if (err && made)
		unlinkat(dirfd, PROFDIR_OUTPUT, AT_REMOVEDIR);
	return err;
}

/* Lost data is never silent: one line per data file read in part. */
static void report_losses(const char *label, const struct profdata *p)
{
	char why[256], shown[sizeof(p->meta.incomplete_reason) +
			     sizeof(p->problems[0].file)];
	unsigned int i;

	for (i = 0; i < p->nproblems && i < PROFDATA_MAX_PROBLEMS; i++) {
		const struct profdata_problem *pb = &p->problems[i];

		profdata_problem_str(why, sizeof(why), pb);
		ERR("%s/%s: %s: %s", label,
		    printable_copy(shown, sizeof(shown), pb->file), why,
		    pb->kept ? "exported all the same" :
		    pb->count ? "dropped, the rest exported" :
		    pb->err == -EBADMSG || pb->err == -EILSEQ ?
		    "exported up to there" : "its data is not exported");
	}
	if (p->nproblems > PROFDATA_MAX_PROBLEMS)
		WARN("%s: %u more data files read in part or with faults",
		    label, p->nproblems - PROFDATA_MAX_PROBLEMS);
	if (p->meta.lost_events)
		WARN("%s: %llu host events were lost in the window (ring buffer full): exported the rest",
		    label, p->meta.lost_events);
	if (p->tstate && p->tstate->disagreed)
		WARN("%s: thread states: %llu records did not follow their thread's last (one was lost): the time between is Unknown",
		     label, (unsigned long long)p->tstate->disagreed);
	if (p->meta.incomplete)
		WARN("%s: incomplete window (%s): exported what was recorded",
		    label, printable_copy(shown, sizeof(shown),
					  p->meta.incomplete_reason));
}

/* The db, written by a thread of its own beside the text outputs. */
struct db_job {
	int dirfd;
	const char *label;
	const struct profdata *p;
	struct db_file f;
	pthread_t thread;
	bool threaded;
	int err;
};

static void *run_db_job(void *arg)
{
	struct db_job *j = arg;

	j->err = db_write(j->dirfd, j->label, j->p, &j->f);
	return NULL;
}

/*
 * The text outputs, and with db the db beside them: the db takes longer
 * than the timeline, so written one after the other they would take the
 * two times added.  The db is renamed in after the text outputs, and
 * only if they were.
 */
static int export_all(int dirfd, const char *label, const struct profdata *p,
		      bool db)
{
	struct db_job j = { .dirfd = dirfd, .label = label, .p = p };
	int err;

	if (db)
		j.threaded = !pthread_create(&j.thread, NULL, run_db_job, &j);
	err = export_files(dirfd, label, p);
	if (j.threaded)
		pthread_join(j.thread, NULL);
	else if (db && !err)
		run_db_job(&j);
	if (!db) {
		if (!err && db_remove_stale(dirfd, NULL))	/* readers prefer a db */
			WARN("%s: an earlier export's msprof_*.db is left, which readers take instead of the new files",
			    label);
		return err;
	}
	if (err) {
		if (j.threaded && !j.err)
			db_discard(dirfd, &j.f);
		return err;
	}
	return j.err ?: db_commit(dirfd, label, &j.f);
}

/* 0: exported whole; 1: exported, less than the window held; or -errno. */
static int export_one(int dirfd, const char *label, void *ctx)
{
	bool db = *(const bool *)ctx;
	struct profdata p;
	char why[256];
	int err;

	err = profdata_load_at(&p, dirfd);
	if (err) {
		profdata_strerror(why, sizeof(why), err);
		ERR("%s: not exported: %s", label, why);
		return err;
	}
	testpoint("export-after-load");
	report_losses(label, &p);
	err = export_all(dirfd, label, &p, db);
	if (!err)
		err = p.nproblems > p.nkept || p.meta.incomplete ||
		      p.meta.lost_events;
	profdata_free(&p);
	return err;
}

int export_run(const char *dir, bool db)
{
	const struct window_walk w = {
		.verb = "export", .done = "exported", .one = export_one, .ctx = &db,
	};

	return windows_walk(dir, &w);
}
