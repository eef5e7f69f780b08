// SPDX-License-Identifier: MIT
/*
 * MSTX_EVENTS: the user marks, a row each, as msprof's db has them: times
 * in epoch ns, the message and the domain's name as STRING_IDS ids, the
 * threads as globalTids; no connection to a device task (marks on npusim's
 * streams reach no device), so connectionId is NULL.
 */
#include "db_parts.h"
#include "mstx.h"

int db_mstx_rows(struct dbw *w)
{
	const struct mstx_set *s = w->p->mstx;
	int64_t v[10];
	size_t i;
	int err = 0;

	for (i = 0; s && i < s->nrows && !err; i++) {
		const struct mstx_row *r = &s->rows[i];

		v[0] = (int64_t)profmeta_epoch_ns(&w->p->meta, r->start_ns);
		v[1] = (int64_t)profmeta_epoch_ns(&w->p->meta, r->end_ns);
		v[2] = r->type;
		v[3] = r->type == MSTX_TYPE_START_END ? (int64_t)r->range_id : DB_NULL;
		v[4] = 0;	/* category: none in mstx's API */
		v[6] = w->pid_hi | r->tid;
		v[7] = w->pid_hi | r->end_tid;
		v[9] = DB_NULL;
		err = db_str_id(w, mstx_text(s, r->msg), &v[5]) ?:
		      db_str_id(w, mstx_text(s, r->domain), &v[8]) ?:
		      db_row(w, T_MSTX_EVENTS, v, 10);
	}
	return err;
}
