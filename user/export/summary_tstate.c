// SPDX-License-Identifier: MIT
/*
 * The thread states' summaries (--host-sys=sched, beyond msprof):
 * thread_state, each thread's time in each state, and thread_off_cpu,
 * each thread's longest stretches off the CPU with what it left the CPU
 * for, the syscall and API call it was in and who woke it.  Threads by
 * the tid their task sees (the timeline's), times in µs as msprof's CSVs
 * have them.
 */
#include <errno.h>

#include "msprof/sched.h"
#include "summary.h"
#include "summary_csv.h"
#include "tstate.h"

bool summary_has_tstate(const struct profdata *p)
{
	return p->tstate && p->tstate->nthreads;
}

int summary_thread_state(FILE *fp, const struct profdata *p)
{
	const struct tstate_set *s = p->tstate;
	uint64_t pid = profmeta_task_pid(&p->meta), all;
	size_t i;
	int st;

	fputs("Pid,Tid,Thread Name,Running(us),Runnable(us),Sleeping(us),"
	      "Uninterruptible(us),Stopped(us),Unknown(us),Total(us),"
	      "Switches,Wake-ups,Exited\n", fp);
	for (i = 0; s && i < s->nthreads; i++) {
		const struct tstate_thread *th = &s->threads[i];

		csv_u64(fp, pid);
		csv_next_u64(fp, th->ns_tid);
		csv_next_text(fp, tstate_str(s, th->name));
		for (all = 0, st = 0; st < TS_NSTATES; st++) {
			csv_next_us(fp, th->ns[st]);
			all += th->ns[st];
		}
		csv_next_us(fp, all);
		csv_next_u64(fp, th->switches);
		csv_next_u64(fp, th->wakeups);
		fputs(th->exited ? ",yes\n" : ",no\n", fp);
	}
	return ferror(fp) ? -EIO : 0;
}

/* The API call its thread was inside as the stretch began: its name, or "". */
static const char *api_at(const struct profdata *p, uint32_t tid, uint64_t ns)
{
	const struct profcall *c = profdata_call(p, profdata_conn_at(p, tid, ns));
	const struct api_desc *d = c ? profdata_desc(p, c->api_id) : NULL;

	return d ? d->name : "";
}

static void off_row(FILE *fp, const struct profdata *p, uint64_t pid,
		    const struct tstate_thread *th, uint32_t rank,
		    const struct tstate_off *o)
{
	const struct tstate_set *s = p->tstate;
	const struct tstate_span *first = &s->spans[o->span];
	const struct tstate_span *woke = o->wake == UINT32_MAX ? NULL :
					 &s->spans[o->wake];
	const char *text;
	char buf[96];

	csv_u64(fp, pid);
	csv_next_u64(fp, th->ns_tid);
	csv_next_text(fp, tstate_str(s, th->name));
	csv_next_u64(fp, rank);
	csv_next_us(fp, profmeta_epoch_ns(&p->meta, o->start_ns));
	csv_time_end(fp);
	csv_next_us(fp, o->end_ns - o->start_ns);
	fputc(',', fp);
	fputs(tstate_name(first->state), fp);
	if (first->flags & TSPAN_PREEMPTED)
		fputs(" (preempted)", fp);
	text = tstate_syscall(first, buf, sizeof(buf));
	csv_next_text(fp, text ? text : "");
	csv_next_text(fp, api_at(p, th->ns_tid, o->start_ns));
	text = woke ? tstate_waker_text(s, woke, buf, sizeof(buf)) : NULL;
	csv_next_text(fp, text ? text : "");
	csv_next_us(fp, o->runnable_ns);
	fputs(first->flags & TSPAN_BEFORE ? ",yes" : ",no", fp);
	fputs(o->to_end ? ",yes\n" : ",no\n", fp);
}

int summary_thread_off_cpu(FILE *fp, const struct profdata *p)
{
	const struct tstate_set *s = p->tstate;
	uint64_t pid = profmeta_task_pid(&p->meta);
	size_t i;
	uint32_t k;

	fputs("Pid,Tid,Thread Name,Rank,Start Time(us),Duration(us),State,"
	      "Syscall,API,Woken By,Runnable(us),Began Before Window,"
	      "Lasted Past Window\n", fp);
	for (i = 0; s && i < s->nthreads; i++)
		for (k = 0; k < s->threads[i].nlongest; k++)
			off_row(fp, p, pid, &s->threads[i], k + 1,
				&s->threads[i].longest[k]);
	return ferror(fp) ? -EIO : 0;
}
