// SPDX-License-Identifier: MIT
/*
 * OSRT_API's rows of the OS runtime calls (--host-sys=osrt): every syscall
 * and pthread call of our records, beside the driver ioctls' (db_rows.c),
 * as msprof's db has its own: the name a STRING_IDS id, the thread a
 * globalTid, times in epoch ns.
 */
#include "db_parts.h"
#include "osrt.h"
#include "osrt_call.h"

static int write_call(const struct msprof_osrt_event *e, void *ctx)
{
	struct dbw *w = ctx;
	char buf[32];
	int64_t v[4];
	int err;

	err = db_str_id(w, osrt_call_name(w->p, (uint8_t)e->h.what, e->id, buf, sizeof(buf)),
			&v[0]);
	v[1] = w->pid_hi | e->h.ns_tid;
	v[2] = (int64_t)profmeta_epoch_ns(&w->p->meta, e->start_ns);
	v[3] = (int64_t)profmeta_epoch_ns(&w->p->meta, e->end_ns);
	return err ?: db_row(w, T_OSRT_API, v, 4);
}

int db_osrt_rows(struct dbw *w)
{
	return profdata_each_osrt(w->p, write_call, w);
}
