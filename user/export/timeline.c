// SPDX-License-Identifier: MIT
/*
 * The timeline, msprof_<ts>.json, as msprof writes it (spec §4): one JSON
 * array; processes numbered (pid << 10 | sort index << 5 | device), each
 * named by three metadata events; times on msprof's epoch scale, ts a
 * string of µs with 3 decimals; keys in msprof's order, since some readers
 * compare text.  Host records are written as the file is walked, never
 * held: a window of millions of calls exports in little memory.
 */
#include <errno.h>
#include <stdlib.h>

#include "timeline.h"
#include "timeline_parts.h"

/*
 * A marker of lost data: an instant event on the CANN process's thread 0,
 * at the window's end, with what it says in args.  Readers that take
 * slices (ph X) pass over it; viewers show it across the timeline.
 */
static void mark(struct tl *t, const char *what)
{
	tl_head(t, what, tl_pid(t, SORT_CANN, HOST_DEVICE), 0);
	tl_ts(t, t->p->end_mono_ns);
	LIT(&t->ob, ",\"ph\":\"i\",\"s\":\"g\",\"args\":{");
}

/* Lost data is never silent: a marker for each kind of loss. */
static bool write_losses(struct tl *t)
{
	const struct profdata *p = t->p;
	char what[512], why[256];
	bool any = false;
	unsigned int i;

	if (p->meta.lost_events) {
		snprintf(what, sizeof(what), "msprof: %llu host events lost (ring buffer full)",
			 p->meta.lost_events);
		mark(t, what);
		LIT(&t->ob, "\"lost_events\":");
		ob_u64(&t->ob, p->meta.lost_events);
		LIT(&t->ob, "}}");
		any = true;
	}
	for (i = 0; i < p->nproblems && i < PROFDATA_MAX_PROBLEMS; i++) {
		const struct profdata_problem *pb = &p->problems[i];

		profdata_problem_str(why, sizeof(why), pb);
		snprintf(what, sizeof(what), "msprof: %s: %s", pb->file, why);
		mark(t, what);
		LIT(&t->ob, "\"file\":");
		ob_json_str(&t->ob, pb->file);
		LIT(&t->ob, ",\"problem\":");
		ob_json_str(&t->ob, why);
		LIT(&t->ob, "}}");
		any = true;
	}
	if (p->nproblems > PROFDATA_MAX_PROBLEMS) {
		snprintf(what, sizeof(what), "msprof: %u more data files read in part",
			 p->nproblems - PROFDATA_MAX_PROBLEMS);
		mark(t, what);
		LIT(&t->ob, "}}");
	}
	if (p->meta.incomplete) {
		snprintf(what, sizeof(what), "msprof: incomplete window (%s)",
			 p->meta.incomplete_reason);
		mark(t, what);
		LIT(&t->ob, "\"state\":\"incomplete\",\"incomplete_reason\":");
		ob_json_str(&t->ob, p->meta.incomplete_reason);
		LIT(&t->ob, "}}");
		any = true;
	}
	return any;
}

static int write_all(struct tl *t)
{
	int err;

	ob_char(&t->ob, '[');
	tl_cann_names(t);
	err = tl_device_names(t) ?: tl_host(t) ?: tl_osrt(t);
	if (err)
		return err;
	tl_cann_tids(t);
	tl_osrt_names(t);
	err = tl_mstx(t) ?: tl_tstate(t) ?: tl_hostsys(t);
	if (err)
		return err;
	tl_tasks(t);
	tl_comm_ops(t);
	err = tl_overlap(t);
	if (err)
		return err;
	tl_aicore_freq(t);
	if (write_losses(t))
		tl_thread(t, tl_pid(t, SORT_CANN, HOST_DEVICE), 0, "msprof", 0);
	LIT(&t->ob, "\n]\n");
	return ob_flush(&t->ob);
}

int timeline_write(FILE *fp, const struct profdata *p)
{
	struct tl *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return -ENOMEM;
	ob_init(&t->ob, fp);
	t->p = p;
	t->pid = profmeta_task_pid(&p->meta);
	t->first = true;
	err = tl_api_texts(t);
	if (!err)
		err = copy_calls_load(&t->copies, p);
	if (!err)
		err = comm_ops_load(&t->comm, p);
	if (!err)
		err = write_all(t);
	free(t->text);
	copy_calls_free(&t->copies);
	comm_ops_free(&t->comm);
	free(t->io_tids.v);
	free(t->cann_tids.v);
	free(t->cann_of);
	free(t);
	if (err)
		return err;
	if (fflush(fp))		/* the reason, ENOSPC often, while errno holds it */
		return -errno;
	return ferror(fp) ? -EIO : 0;
}

