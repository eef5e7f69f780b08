/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_SAMPLER_H
#define MSPROF_SAMPLER_H

/*
 * --host-sys=cpu,mem,disk,network and --host-sys-usage: one thread of the
 * controller samples /proc for every target of a window, from the window's
 * start to its stop, at msprof's periods (HOSTSYS_PERIOD_MS, and the
 * usage frequency), into each target's PROF_ directory as msprof's
 * collector writes them (docs/output.md, "Host system data").  osrt and
 * sched are others' (the syscall hooks): ignored here.
 *
 * Nothing here waits for the thread for long: a read of a task's /proc
 * stat or io waits while its exec is stuck, so a removal or the stop waits
 * SYS_SAMPLER_WAIT_MS at most, then leaves the thread to end by itself
 * (-ETIMEDOUT; what it had not written is dropped).
 */
#include <stdbool.h>

#include "common/hostsys.h"
#include "sysresult.h"

#define SYS_SAMPLER_WAIT_MS	1000
/* The thread's name (its comm). */
#define SYS_SAMPLER_THREAD	"msprof-hostsys"

struct sys_sampler;
/* Whether c asks for anything this sampler collects. */
bool sys_sampler_wanted(const struct hostsys_conf *c);
/* Starts the thread, with no target yet: 0 or -errno. */
int sys_sampler_start(struct sys_sampler **sp, const struct hostsys_conf *c);
/*
 * Samples host_pid into the PROF_ directory dir (duplicated: the caller
 * keeps its own) from now on.  -ENOMEM, -EMFILE or -ESHUTDOWN (the thread
 * is gone).
 */
int sys_sampler_add(struct sys_sampler *s, int host_pid, int dir);
/*
 * Ends host_pid's samples: its files written whole and closed, or with
 * discard removed; r says what it got.  -ETIMEDOUT if the thread did not
 * answer within SYS_SAMPLER_WAIT_MS; -ENOENT if it was never added.
 */
int sys_sampler_remove(struct sys_sampler *s, int host_pid, bool discard,
		       struct sys_result *r);
/* Ends the thread (the same wait at most) and frees s; NULL is nothing. */
void sys_sampler_stop(struct sys_sampler *s);

#endif
