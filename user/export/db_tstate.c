// SPDX-License-Identifier: MIT
/*
 * THREAD_STATE (ours, beyond msprof's db): a row per thread-state span,
 * as the timeline's Thread States process draws them.  Times in epoch ns,
 * the thread as a globalTid; state is ENUM_THREAD_STATE's; the syscall
 * and the waker's name are STRING_IDS ids; connectionId is the API call
 * the thread was inside as an off-CPU span began.
 */
#include "db_parts.h"
#include "tstate.h"

/* The waker as a globalTid: its process's, as the task's own threads are. */
static int64_t waker_tid(const struct dbw *w, const struct tstate_span *sp)
{
	if (!(sp->flags & TSPAN_WOKEN) || (sp->flags & TSPAN_IRQ))
		return DB_NULL;
	if (sp->waker.same_task)
		return w->pid_hi | sp->waker.tid;
	return (int64_t)((uint64_t)sp->waker.pid << 32 | sp->waker.tid);
}

static int write_span(struct dbw *w, const struct tstate_set *s,
		      const struct tstate_span *sp)
{
	const struct tstate_thread *th = &s->threads[sp->thread];
	const char *text;
	char buf[96];
	int64_t v[10];
	uint64_t conn;
	int err = 0;

	v[0] = (int64_t)profmeta_epoch_ns(&w->p->meta, sp->start_ns);
	v[1] = (int64_t)profmeta_epoch_ns(&w->p->meta, sp->end_ns);
	v[2] = w->pid_hi | th->ns_tid;
	v[3] = sp->state;
	v[4] = DB_NULL;
	v[5] = waker_tid(w, sp);
	v[6] = DB_NULL;
	conn = sp->state == TS_RUNNING ? 0 :
	       profdata_conn_at(w->p, th->ns_tid, sp->start_ns);
	v[7] = conn ? (int64_t)conn : DB_NULL;
	v[8] = sp->state == TS_RUNNING ? sp->cpu : DB_NULL;
	v[9] = sp->flags;
	text = tstate_syscall(sp, buf, sizeof(buf));
	if (text)
		err = db_str_id(w, text, &v[4]);
	text = tstate_waker_text(s, sp, buf, sizeof(buf));
	if (!err && text)
		err = db_str_id(w, text, &v[6]);
	return err ?: db_row(w, T_THREAD_STATE, v, 10);
}

int db_tstate_rows(struct dbw *w)
{
	const struct tstate_set *s = w->p->tstate;
	size_t i;
	int err = 0;

	for (i = 0; s && i < s->nspans && !err; i++)
		err = write_span(w, s, &s->spans[i]);
	return err;
}
