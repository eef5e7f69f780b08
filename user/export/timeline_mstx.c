// SPDX-License-Identifier: MIT
/*
 * The timeline's user marks, as msprof draws msproftx data: a process of
 * its own named as the task is (msprof's "PID Name" layer, sort index 6),
 * a thread per thread that marked, and a slice per mark (no duration) and
 * per range, named by its message.
 */
#include <stdlib.h>

#include "mstx.h"
#include "msprof/mstx.h"
#include "pystack.h"
#include "timeline_parts.h"

/* msprof's ENUM_MSTX_EVENT_TYPE names. */
static const char *event_type(uint8_t type)
{
	return type == MSTX_TYPE_START_END ? "start/end" : "marker";
}

static void write_row(struct tl *t, const struct mstx_set *s,
		      const struct mstx_row *r, uint64_t pid)
{
	struct outbuf *b = &t->ob;

	tl_head(t, mstx_text(s, r->msg), pid, r->tid);
	tl_span_args(t, r->start_ns, r->end_ns);
	LIT(b, "\"Category\":\"0\",\"Payload_type\":0,\"Payload_value\":0,"
	    "\"Message_type\":0,\"event_type\":");
	ob_json_str(b, event_type(r->type));
	LIT(b, ",\"domain\":");
	ob_json_str(b, mstx_text(s, r->domain));
	if (r->type == MSTX_TYPE_START_END) {
		LIT(b, ",\"range_id\":");
		ob_u64(b, r->range_id);
	}
	if (r->flags & MSTX_ROW_OTHER_THREAD) {
		LIT(b, ",\"end_tid\":");
		ob_u64(b, r->end_tid);
	}
	if (r->flags & MSTX_MSG_CUT)
		LIT(b, ",\"message_cut\":true");
	tl_call_stack(t, pystacks_chain(&t->p->py, r->stack_id));
	LIT(b, "}}");
}

int tl_mstx(struct tl *t)
{
	const struct mstx_set *s = t->p->mstx;
	uint64_t pid = tl_pid(t, SORT_FRAMEWORK, HOST_DEVICE);
	struct idset tids = { 0 };
	size_t i;
	int err = 0;

	if (!s || !s->nrows)
		return 0;
	for (i = 0; i < s->nrows && !err; i++) {
		write_row(t, s, &s->rows[i], pid);
		err = tl_idset_add(&tids, s->rows[i].tid);
	}
	if (!err) {
		tl_process(t, *t->p->meta.comm ? t->p->meta.comm : "MsprofTx",
			   "CPU", SORT_FRAMEWORK, HOST_DEVICE);
		tl_idset_close(&tids);
		for (i = 0; i < tids.n; i++)
			tl_numbered_thread(t, pid, "Thread", tids.v[i]);
	}
	free(tids.v);
	return err;
}
