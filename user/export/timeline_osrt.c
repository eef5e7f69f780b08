// SPDX-License-Identifier: MIT
/*
 * The OS Runtime API track's calls of --host-sys=osrt: every syscall and
 * pthread call of our records (msprof's four and the blocking ones), a
 * slice each on its thread, beside the driver ioctls (timeline_host.c)
 * that stand for their syscalls.  msprof's slices have no args; ours say
 * a syscall's number and what a call returned, and how long a pthread
 * call spent blocked in syscalls.
 */
#include "msprof/osrt.h"
#include "osrt.h"
#include "osrt_call.h"
#include "timeline_parts.h"

static int write_call(const struct msprof_osrt_event *e, void *ctx)
{
	struct tl *t = ctx;
	char buf[32];

	tl_head(t, osrt_call_name(t->p, (uint8_t)e->h.what, e->id, buf, sizeof(buf)),
		tl_pid(t, SORT_OSRT, HOST_DEVICE), e->h.ns_tid);
	tl_span_args(t, e->start_ns, e->end_ns);
	if (e->h.what == OSRT_SYSCALL) {
		LIT(&t->ob, "\"nr\":");
		ob_u64(&t->ob, e->id);
		LIT(&t->ob, ",\"return\":");
	} else {
		LIT(&t->ob, "\"blocked(us)\":");
		ob_us3(&t->ob, e->blocked_ns);
		LIT(&t->ob, ",\"return\":");
	}
	ob_i64(&t->ob, e->ret);
	LIT(&t->ob, "}}");
	return 0;
}

int tl_osrt(struct tl *t)
{
	const struct osrt_set *s = t->p->osrt;
	size_t i;
	int err = 0;

	/* Their threads are named with the ioctls' (tl_osrt_names). */
	for (i = 0; s && i < s->nstats && !err; i++)
		err = tl_idset_add(&t->io_tids, s->stats[i].tid);
	return err ?: profdata_each_osrt(t->p, write_call, t);
}
