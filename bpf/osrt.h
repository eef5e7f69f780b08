/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --host-sys=osrt (included by msprof.bpf.c after what it uses): every
 * syscall of the targets' threads, from the syscall hooks msprof attaches
 * for each window, and their pthread calls, by uprobes of their own on
 * the task's libc.  A syscall's entry is kept in the thread's state
 * (thread_state(), so its ids come once a window), its return records it;
 * the thread's time in syscalls adds up there too, and tells a pthread
 * call that waited (its futex waits) from one that did not: a call that
 * can block is kept only when it waited --osrt-threshold or more.
 *
 * Loaded without osrt, every branch on it is dead to the verifier: the
 * syscall hooks are then the ioctls' alone, at their cost.
 */
#ifndef MSPROF_BPF_OSRT_H
#define MSPROF_BPF_OSRT_H

const volatile bool osrt;
const volatile __u64 osrt_threshold_ns;
/* prctl's syscall number on the build's architecture: a thread's new name. */
const volatile long prctl_nr = -1;
/*
 * The syscalls uprobes' trampolines make (x86_64: uretprobe since 6.11,
 * uprobe since 6.16): the probes' own work, msprof's among them, never
 * the task's.  -1: none.
 */
const volatile long uretprobe_nr = -1;
const volatile long uprobe_nr = -1;

#define OSRT_PR_SET_NAME 15

/* The six argument registers of the syscall entering now: plain loads. */
#if defined(__TARGET_ARCH_x86)
#define SYSCALL_ARGS(r, a) do {						\
	(a)[0] = (r)->di; (a)[1] = (r)->si; (a)[2] = (r)->dx;		\
	(a)[3] = (r)->r10; (a)[4] = (r)->r8; (a)[5] = (r)->r9;		\
} while (0)
#elif defined(__TARGET_ARCH_arm64)
#define SYSCALL_ARGS(r, a) do {						\
	(a)[0] = (r)->regs[0]; (a)[1] = (r)->regs[1];			\
	(a)[2] = (r)->regs[2]; (a)[3] = (r)->regs[3];			\
	(a)[4] = (r)->regs[4]; (a)[5] = (r)->regs[5];			\
} while (0)
#else
#define SYSCALL_ARGS(r, a) __builtin_memset(a, 0, 6 * sizeof(__u64))
#endif

static __always_inline void osrt_sys_enter(struct pt_regs *regs, long nr)
{
	struct msprof_call_stack *st;

	if (!gate || nr == uretprobe_nr || nr == uprobe_nr)
		return;
	st = thread_state((__u32)bpf_get_current_pid_tgid());
	if (!st)
		return;
	st->sys_nr = (__u32)nr;
	SYSCALL_ARGS(regs, st->sys_args);
	/* Last, so the call's own time leaves out ours. */
	st->sys_start = bpf_ktime_get_ns();
}

static __always_inline void osrt_head(struct msprof_osrt_head *h,
				      const struct msprof_call_stack *st,
				      __u16 what)
{
	h->kind = MSPROF_EV_OSRT;
	h->what = what;
	h->pad = 0;
	h->tgid = st->tgid;
	h->tid = st->tid;
	h->ns_tid = st->ns_tid;
}

/* The thread's name, before the line of its first syscall that needs it. */
static __always_inline void osrt_comm(struct msprof_call_stack *st)
{
	struct msprof_osrt_comm *c = bpf_ringbuf_reserve(&events, sizeof(*c), 0);

	if (!c) {
		lost(st->tgid);
		return;
	}
	osrt_head(&c->h, st, OSRT_COMM);
	c->pad = 0;
	bpf_get_current_comm(c->comm, sizeof(c->comm));
	submit(c);
	st->sys_named = 1;
}

/*
 * A call's record reserved and its head filled; NULL (counted lost) where
 * the ring buffer has no room.  The caller adds the rest and submits it.
 */
static __always_inline struct msprof_osrt_event *
osrt_call(const struct msprof_call_stack *st, __u16 what, __u32 id,
	  __u64 start_ns, __u64 end_ns, __s64 ret)
{
	struct msprof_osrt_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		lost(st->tgid);
		return NULL;
	}
	osrt_head(&e->h, st, what);
	e->id = id;
	e->start_ns = start_ns;
	e->end_ns = end_ns;
	e->ret = ret;
	return e;
}

/* Not gated, as api_exit: a syscall that entered in the window is recorded. */
static __always_inline int osrt_sys_exit(struct pt_regs *regs, long ret)
{
	__u32 host_tid = (__u32)bpf_get_current_pid_tgid(), tgid, tid;
	struct msprof_call_stack *st = bpf_map_lookup_elem(&stacks, &host_tid);
	struct msprof_osrt_event *e;
	__u64 start, end_ns;

	if (!st || !st->sys_start || st->window != window ||
	    st->task != bpf_get_current_task()) {
		/* A target's thread the state map had no room for. */
		if (SYSCALL_NR(regs) == ioctl_nr && current_ids(&tgid, &tid))
			ioctl_done(ret, tgid, tid);
		return 0;
	}
	end_ns = bpf_ktime_get_ns();
	start = st->sys_start;
	st->sys_start = 0;
	st->sys_ns += end_ns - start;
	if (!st->sys_named || (st->sys_nr == prctl_nr && !ret &&
			       st->sys_args[0] == OSRT_PR_SET_NAME))
		osrt_comm(st);
	/* A driver's ioctl has its own record, which stands for both. */
	if (st->sys_nr == ioctl_nr && ioctl_done(ret, st->tgid, st->tid))
		return 0;
	e = osrt_call(st, OSRT_SYSCALL, st->sys_nr, start, end_ns, ret);
	if (!e)
		return 0;
	e->blocked_ns = 0;
	__builtin_memcpy(e->args, st->sys_args, sizeof(e->args));
	submit(e);
	return 0;
}

/* A pthread call's entry: a frame on the thread's stack, as an API call's. */
SEC("uprobe")
int osrt_enter(struct pt_regs *ctx)
{
	struct msprof_call_stack *st;
	__u32 v;

	st = probed_entry(ctx, &v);
	if (!st)
		return 0;
	if (!(v >> OSRT_KIND_SHIFT) || (v >> OSRT_KIND_SHIFT) >= OSRT_KINDS) {
		count(MSPROF_STAT_UNNAMED);
		return 0;
	}
	push_frame(ctx, st, v, st->sys_ns);
	return 0;
}

/* Not gated, as api_exit. */
SEC("uretprobe")
int osrt_exit(struct pt_regs *ctx)
{
	/* First, so the call's time leaves out ours. */
	__u64 end_ns = bpf_ktime_get_ns(), blocked;
	struct msprof_call_stack *st = NULL;
	struct msprof_osrt_event *e;
	struct msprof_call_frame *f;

	f = pop_frame(ctx, &st);
	if (!f || !st)
		return 0;
	blocked = st->sys_ns - f->args[5];
	if ((f->api_id >> OSRT_KIND_SHIFT) == OSRT_KIND_BLOCKING &&
	    blocked < osrt_threshold_ns) {
		count(MSPROF_STAT_OSRT_SHORT);
		return 0;
	}
	e = osrt_call(st, OSRT_PTHREAD, f->api_id & OSRT_API_MASK, f->start_ns,
		      end_ns, PT_REGS_RC(ctx));
	if (!e)
		return 0;
	e->blocked_ns = blocked;
	e->args[0] = f->args[0];
	e->args[1] = f->args[1];
	e->args[2] = f->args[2];
	e->args[3] = f->args[3];
	e->args[4] = 0;
	e->args[5] = 0;
	submit(e);
	return 0;
}

#endif
