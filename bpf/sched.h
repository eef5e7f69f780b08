/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Thread states (--host-sys=sched): every context switch and wake-up of a
 * target's thread, attached only inside a window that asks for them.
 * sched_switch and sched_waking run for every thread of the machine, so
 * the first thing each does is a byte load that rules out all but the
 * targets' threads (and the few whose tgid shares their slot).
 */
#ifndef MSPROF_BPF_SCHED_H
#define MSPROF_BPF_SCHED_H

#include "msprof/sched.h"

#define SCHED_SLOTS (1u << 16)

/*
 * Non-zero at tgid & (SCHED_SLOTS - 1) where a target may have that tgid:
 * set by msprof for its targets and by the fork hook for a followed child,
 * cleared only once the hooks are gone.  Bytes, not bits: 5.10 has no
 * atomic or, and a byte store cannot undo a neighbour's.
 */
__u8 sched_slots[SCHED_SLOTS];
/*
 * task->stack + regs_off is the task's user registers (the kernel's
 * task_pt_regs()): learned by msprof from a syscall of its own, since
 * THREAD_SIZE is in no BTF and bpf_task_pt_regs() is 5.15's.  0: not
 * known, and syscalls are then recorded as such.
 */
__u64 regs_off;
/* msprof's own tgid, whose syscall teaches regs_off. */
const volatile __u32 learn_tgid;

/* task_struct before 5.14, whose state was a long of that name. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline bool sched_slot(__u32 tgid)
{
	return sched_slots[tgid & (SCHED_SLOTS - 1)];
}

static __always_inline __u32 task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return (__u32)BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

/* The tid in the thread's own pid namespace: its innermost number. */
static __always_inline __u32 task_ns_tid(struct task_struct *t)
{
	struct pid *pid = BPF_CORE_READ(t, thread_pid);
	unsigned int level = BPF_CORE_READ(pid, level);
	int nr;

	if (bpf_probe_read_kernel(&nr, sizeof(nr),
				  (char *)pid + bpf_core_field_offset(struct pid, numbers) +
				  (__u64)(level & 63) * bpf_core_type_size(struct upid) +
				  bpf_core_field_offset(struct upid, nr)))
		return 0;
	return (__u32)nr;
}

/*
 * The syscall the thread is in, from the registers its entry saved (the
 * entry of an interrupt or a fault saves -1 there).
 */
static __always_inline __s32 task_syscall(struct task_struct *t)
{
	struct pt_regs *regs;
	__u64 off = regs_off;

	if (!off)
		return MSPROF_SCHED_SYSCALL_UNKNOWN;
	regs = (struct pt_regs *)((__u64)BPF_CORE_READ(t, stack) + off);
#if defined(__TARGET_ARCH_x86)
	return (__s32)BPF_CORE_READ(regs, orig_ax);
#elif defined(__TARGET_ARCH_arm64)
	return BPF_CORE_READ(regs, syscallno);
#else
	return MSPROF_SCHED_SYSCALL_UNKNOWN;
#endif
}

/* PF_KTHREAD: a kernel thread, whose saved user registers mean nothing. */
#define SCHED_PF_KTHREAD 0x00200000

/*
 * Whether this runs in an interrupt (hard, soft or NMI), whose wake-ups no
 * thread made.  No preempt count is read: x86's is a per-CPU variable,
 * which needs kallsyms of data to reach.  Instead: x86_64 and arm64 serve
 * an interrupt on a stack of its own, so the frame is then not on
 * current's stack; but x86 stays on the thread's stack for one that came
 * from user mode, and that one's entry saved no syscall.
 */
static __always_inline bool in_irq(void)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	__u64 stack = (__u64)BPF_CORE_READ(task, stack);
	__u64 here, off = regs_off;
	void *at = &here;

	/* The frame's address as a number, which the verifier lets compare. */
	if (!off || bpf_probe_read_kernel(&here, sizeof(here), &at))
		return false;
	if (here < stack || here >= stack + off)
		return true;
	return !(BPF_CORE_READ(task, flags) & SCHED_PF_KTHREAD) &&
	       task_syscall(task) == MSPROF_SCHED_NO_SYSCALL;
}

/*
 * A record of t's (of tgid, which the slots let by), its what, time and
 * ids filled, *ti its target's; NULL if t is no target's or there is no
 * room.
 */
static __always_inline struct msprof_sched_event *
sched_event(struct task_struct *t, __u32 tgid, __u16 what, __u64 now,
	    struct msprof_target_info **ti)
{
	struct msprof_sched_event *e;

	*ti = bpf_map_lookup_elem(&targets, &tgid);
	if (!*ti)
		return NULL;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		lost(tgid);
		return NULL;
	}
	e->kind = MSPROF_EV_SCHED;
	e->what = what;
	e->flags = 0;
	e->tgid = tgid;
	e->tid = t->pid;
	e->ts_ns = now;
	e->run_ns = BPF_CORE_READ(t, se.sum_exec_runtime);
	e->ns_tid = task_ns_tid(t);
	e->state = 0;
	e->syscall = MSPROF_SCHED_NO_SYSCALL;
	e->cpu = bpf_get_smp_processor_id();
	e->waker_tid = 0;
	e->waker_tgid = 0;
	e->waker_ns_tid = 0;
	e->pad = 0;
	return e;
}

/* prev == current here: the switch runs on the thread that leaves. */
SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	/* Loads through the arguments' BTF: no helper call for the others. */
	__u32 ptgid = prev->tgid, ntgid = next->tgid;
	bool out = sched_slot(ptgid), in = sched_slot(ntgid);
	struct msprof_target_info *ti;
	struct msprof_sched_event *e;
	__u64 now;

	if (!(out || in) || !gate)
		return 0;
	now = bpf_ktime_get_ns();
	if (out && (e = sched_event(prev, ptgid, MSPROF_SCHED_OUT, now, &ti))) {
		/*
		 * Read now, not taken from the argument (5.18 and later): a
		 * signal that came as it went to sleep has made it runnable.
		 */
		e->state = task_state(prev);
		e->flags = preempt ? MSPROF_SCHED_PREEMPTED : 0;
		e->syscall = task_syscall(prev);
		bpf_get_current_comm(e->comm, sizeof(e->comm));
		submit(e);
	}
	if (in && (e = sched_event(next, ntgid, MSPROF_SCHED_IN, now, &ti))) {
		BPF_CORE_READ_STR_INTO(&e->comm, next, comm);
		submit(e);
	}
	return 0;
}

/*
 * sched_waking, not sched_wakeup: it runs on the waker's CPU as current
 * (sched_wakeup may run on the woken thread's CPU), before the woken
 * thread's state is set to running, which so still says what it slept in.
 */
static __always_inline int sched_wake(struct task_struct *p, __u16 what)
{
	struct msprof_target_info *ti;
	struct msprof_sched_event *e;
	struct bpf_pidns_info ns;
	__u32 tgid = p->tgid;
	__u64 id;

	if (!sched_slot(tgid) || !gate)
		return 0;
	e = sched_event(p, tgid, what, bpf_ktime_get_ns(), &ti);
	if (!e)
		return 0;
	e->state = task_state(p);
	e->syscall = task_syscall(p);
	id = bpf_get_current_pid_tgid();
	e->waker_tid = (__u32)id;
	e->waker_tgid = id >> 32;
	if (!bpf_get_ns_current_pid_tgid(ti->pidns_dev, ti->pidns_ino, &ns,
					       sizeof(ns)))
		e->waker_ns_tid = ns.pid;
	if (in_irq())
		e->flags = MSPROF_SCHED_IRQ;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	submit(e);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(sched_waking, struct task_struct *p)
{
	return sched_wake(p, MSPROF_SCHED_WAKE);
}

/* Runs in the creating thread: the new thread's time begins here. */
SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(sched_wakeup_new, struct task_struct *p)
{
	return sched_wake(p, MSPROF_SCHED_WAKE_NEW);
}

/*
 * Attached for one syscall of msprof's before the first window with
 * thread states: its registers' place below its kernel stack's top is
 * every thread's.
 */
SEC("raw_tp/sys_enter")
int learn_regs(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (void *)bpf_get_current_task();

	if (regs_off || bpf_get_current_pid_tgid() >> 32 != learn_tgid)
		return 0;
	regs_off = ctx->args[0] - (__u64)BPF_CORE_READ(task, stack);
	return 0;
}

#endif
