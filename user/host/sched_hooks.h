/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_SCHED_HOOKS_H
#define MSPROF_SCHED_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

#include "links.h"

/*
 * The thread-state hooks (--host-sys=sched, bpf/sched.h): the BPF
 * object's part the tracer drives.  Programs are loaded only when asked
 * for; they are attached for a window and go with its other links.
 */
struct msprof_bpf;

/* Before the object's load: whether the hooks are loaded at all. */
void sched_hooks_configure(struct msprof_bpf *skel, bool on);
/*
 * After the load, once: where a thread's registers lie under its kernel
 * stack, taught by one syscall of msprof's; without it the hooks record
 * syscalls as not known.  0 or -errno.
 */
int sched_hooks_learn(struct msprof_bpf *skel);
/* The hooks of a window, into links. */
int sched_hooks_attach(struct msprof_bpf *skel, struct link_set *links);
/* tgid may be a target's: its switches pass the hooks' first test. */
void sched_hooks_mark(struct msprof_bpf *skel, uint32_t tgid);
/* Every tgid of the targets map marked (each gate opening). */
int sched_hooks_mark_all(struct msprof_bpf *skel);
/* All marks gone: only once the hooks are detached. */
void sched_hooks_clear(struct msprof_bpf *skel);

#endif
