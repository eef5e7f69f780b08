// SPDX-License-Identifier: MIT
/*
 * msprof_tx_<ts>.csv: the user marks, a row each by start, with the
 * columns msprof's msproftx summary has; its reserved ones (category,
 * payload, message type) are 0, as they are for mstx's calls.
 */
#include <errno.h>

#include "mstx.h"
#include "summary.h"
#include "summary_csv.h"

bool summary_has_mstx(const struct profdata *p)
{
	return p->mstx && p->mstx->nrows;
}

int summary_msprof_tx(FILE *fp, const struct profdata *p)
{
	const struct mstx_set *s = p->mstx;
	/* The task as it sees itself, as the timeline's pid is made from. */
	uint64_t pid = profmeta_task_pid(&p->meta);
	size_t i;

	fputs("Device_id,pid,tid,category,event_type,payload_type,payload_value,"
	      "Start_time(us),End_time(us),message_type,message\n", fp);
	for (i = 0; s && i < s->nrows; i++) {
		const struct mstx_row *r = &s->rows[i];

		fputs("host", fp);
		csv_next_u64(fp, pid);
		csv_next_u64(fp, r->tid);
		fputs(",0,", fp);
		fputs(r->type == MSTX_TYPE_START_END ? "start/end" : "marker", fp);
		fputs(",0,0", fp);
		csv_next_us(fp, profmeta_epoch_ns(&p->meta, r->start_ns));
		csv_time_end(fp);
		csv_next_us(fp, profmeta_epoch_ns(&p->meta, r->end_ns));
		csv_time_end(fp);
		fputs(",0", fp);
		/* The task's text: quoted where it would split the row. */
		csv_next_text(fp, mstx_text(s, r->msg));
		fputc('\n', fp);
	}
	return ferror(fp) ? -EIO : 0;
}
