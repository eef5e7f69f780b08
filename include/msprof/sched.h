/* SPDX-License-Identifier: MIT */
/*
 * Thread states (--host-sys=sched): the record the BPF side writes for each
 * context switch and wake-up of a target's thread, and msprof keeps in the
 * target's host file.  Compiled against vmlinux.h (bpf/) and libc (user/),
 * as events.h is; its numbers are kept clear of events.h's, recfile.h's and
 * the other host-sys records'.
 */
#ifndef MSPROF_SCHED_H
#define MSPROF_SCHED_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Ring-buffer kind and host-file record type of struct msprof_sched_event. */
#define MSPROF_EV_SCHED		18
#define MSPROF_REC_SCHED	18

enum msprof_sched_what {
	MSPROF_SCHED_OUT = 1,	/* the thread left its CPU; state says how */
	MSPROF_SCHED_IN,	/* the thread got a CPU */
	MSPROF_SCHED_WAKE,	/* woken (sched_waking): the waker is current */
	MSPROF_SCHED_WAKE_NEW,	/* a new thread made runnable for the first time */
	/*
	 * Written by msprof itself, tid 0: the gate opened (every switch of
	 * the target from ts_ns on is recorded) and closed.
	 */
	MSPROF_SCHED_BEGIN,
	MSPROF_SCHED_END,
};

/* flags */
#define MSPROF_SCHED_PREEMPTED	1u	/* OUT: taken off its CPU, still runnable */
#define MSPROF_SCHED_IRQ	2u	/* WAKE: from an interrupt; no thread woke it */

/* syscall: not in one; not known (the kernel's layout was not learned). */
#define MSPROF_SCHED_NO_SYSCALL		(-1)
#define MSPROF_SCHED_SYSCALL_UNKNOWN	(-2)

/*
 * Task state bits as the kernel has them (include/linux/sched.h), which
 * state holds: 0 is TASK_RUNNING.
 */
#define MSPROF_TASK_INTERRUPTIBLE	0x1u
#define MSPROF_TASK_UNINTERRUPTIBLE	0x2u
#define MSPROF_TASK_STOPPED		0x4u
#define MSPROF_TASK_TRACED		0x8u
#define MSPROF_TASK_EXIT_DEAD		0x10u
#define MSPROF_TASK_EXIT_ZOMBIE		0x20u
#define MSPROF_TASK_DEAD		0x80u
#define MSPROF_TASK_NOLOAD		0x400u

struct msprof_sched_event {
	__u32 kind;		/* MSPROF_EV_SCHED */
	__u16 what;		/* enum msprof_sched_what */
	__u16 flags;		/* MSPROF_SCHED_* */
	__u32 tgid;		/* the thread's, as msprof sees them */
	__u32 tid;
	__u64 ts_ns;		/* CLOCK_MONOTONIC */
	/*
	 * The thread's CPU time so far (the scheduler's sum_exec_runtime, up
	 * to date at a switch): where the kernel reports no switch-in, the
	 * one before its next switch-out says how long it ran.
	 */
	__u64 run_ns;
	__u32 ns_tid;		/* as the thread's task sees itself; 0: not read */
	/*
	 * OUT: the thread's state bits as it left (0: still runnable);
	 * WAKE: as it was woken, so what it slept in.
	 */
	__u32 state;
	__s32 syscall;		/* OUT, WAKE: the syscall it is in (the native table) */
	__u32 cpu;
	__u32 waker_tid;	/* WAKE: current, as msprof sees it */
	__u32 waker_tgid;
	__u32 waker_ns_tid;	/* as the woken thread's task sees it; 0: not in its namespace */
	__u32 pad;
	char comm[16];		/* OUT, IN: the thread's name; WAKE: the waker's */
};

_Static_assert(__builtin_offsetof(struct msprof_sched_event, what) == 4 &&
	       __builtin_offsetof(struct msprof_sched_event, tgid) == 8,
	       "kind, kind word and tgid where struct msprof_event_head has them");

#endif
