// SPDX-License-Identifier: MIT
/*
 * The timeline's thread states (--host-sys=sched, beyond msprof): a
 * process "Thread States" right after CANN (sort index 8), a row per
 * thread named and numbered as its CANN row is (the tid its task sees),
 * and a slice per span named by its state, whose args say the syscall it
 * was in, who woke it, and the API call it was inside.
 */
#include <stdlib.h>

#include "timeline_parts.h"
#include "tstate.h"

/* The API call (outermost to innermost: the innermost) a span began in. */
static void api_at(struct tl *t, const struct tstate_thread *th,
		   const struct tstate_span *sp)
{
	uint64_t conn = profdata_conn_at(t->p, th->ns_tid, sp->start_ns);
	const struct profcall *c = profdata_call(t->p, conn);
	const struct api_desc *d = c ? profdata_desc(t->p, c->api_id) : NULL;

	if (!d)
		return;
	LIT(&t->ob, ",\"API\":");
	ob_json_str(&t->ob, d->name);
	LIT(&t->ob, ",\"connection_id\":");
	ob_u64(&t->ob, conn);
}

static void write_span(struct tl *t, const struct tstate_set *s,
		       const struct tstate_span *sp, uint64_t pid)
{
	const struct tstate_thread *th = &s->threads[sp->thread];
	struct outbuf *b = &t->ob;
	const char *text;
	char buf[96];

	tl_head(t, tstate_name(sp->state), pid, th->ns_tid);
	tl_span_args(t, sp->start_ns, sp->end_ns);
	LIT(b, "\"Thread Id\":");
	ob_u64(b, th->ns_tid);
	if (sp->state == TS_RUNNING) {
		LIT(b, ",\"CPU\":");
		ob_u64(b, sp->cpu);
	}
	text = tstate_syscall(sp, buf, sizeof(buf));
	if (text) {
		LIT(b, ",\"syscall\":");
		ob_json_str(b, text);
	}
	if (sp->state == TS_RUNNABLE && (sp->flags & (TSPAN_NEW | TSPAN_PREEMPTED |
						      TSPAN_WOKEN))) {
		LIT(b, ",\"reason\":");
		ob_json_str(b, sp->flags & TSPAN_NEW ? "new thread" :
			    sp->flags & TSPAN_PREEMPTED ? "preempted" : "woken");
	}
	text = tstate_waker_text(s, sp, buf, sizeof(buf));
	if (text) {
		LIT(b, ",\"woken by\":");
		ob_json_str(b, text);
	}
	if (sp->state != TS_RUNNING)
		api_at(t, th, sp);
	if (sp->flags & TSPAN_BEFORE)
		LIT(b, ",\"began before the window\":true");
	if (sp->flags & TSPAN_UNSEEN_IN)
		LIT(b, ",\"start from CPU time\":true");
	LIT(b, "}}");
}

int tl_tstate(struct tl *t)
{
	const struct tstate_set *s = t->p->tstate;
	uint64_t pid = tl_pid(t, SORT_TSTATE, HOST_DEVICE);
	char name[64];
	size_t i;

	if (!s || !s->nspans)
		return 0;
	for (i = 0; i < s->nspans; i++)
		write_span(t, s, &s->spans[i], pid);
	tl_process(t, "Thread States", "CPU", SORT_TSTATE, HOST_DEVICE);
	for (i = 0; i < s->nthreads; i++) {
		snprintf(name, sizeof(name), "Thread %u (%s)", s->threads[i].ns_tid,
			 tstate_str(s, s->threads[i].name));
		tl_thread(t, pid, s->threads[i].ns_tid, name, s->threads[i].ns_tid);
	}
	return 0;
}
