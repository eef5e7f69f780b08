// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Host-side capture: runtime API calls (uprobe/uretprobe pairs) and driver
 * ioctls of the target processes, written into one ring buffer.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "msprof/events.h"
#include "msprof/mstx.h"
#include "msprof/osrt.h"

/* Syscall number of ioctl on the build's architecture, set before load. */
const volatile long ioctl_nr = -1;
/*
 * The kernel has attach cookies (5.15 and later).  Where it has not, the
 * verifier sees the cookie's branch is dead and never checks its helper.
 */
const volatile bool use_cookies;
/* --ioctl-payload=on: keep the start of each ioctl's argument struct. */
const volatile bool ioctl_payload;
/*
 * msprof's own pid namespace when it is not the initial one (msprof runs
 * in a container): ids are then taken as msprof sees them.
 */
const volatile __u64 view_ns_dev;
const volatile __u64 view_ns_ino;
/*
 * A wake-up per record costs the task about a microsecond: records wake
 * msprof only once this many bytes wait (a part of the buffer, set before
 * load); below it msprof's own timer collects them.
 */
const volatile __u64 wake_bytes;

/*
 * The collection window.  Probes stay attached only while collecting, but
 * they attach one by one; the gate opens and closes all of them at once.
 */
__u32 gate;
/*
 * The window's number, raised by msprof once a window's probes are gone:
 * per-thread state of an earlier window is void (calls a detach cut in
 * half), so the map needs no clearing.
 */
__u32 window;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, MSPROF_RINGBUF_BYTES);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MSPROF_MAX_TARGETS);
	__type(key, __u32);	/* tgid as msprof sees it */
	__type(value, struct msprof_target_info);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MSPROF_MAX_DEVS);
	__type(key, __u32);	/* MSPROF_KDEV(major, minor) */
	__type(value, __u32);
} devs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MSPROF_MAX_ENTRIES);	/* 1 where cookies work */
	__type(key, struct msprof_entry_key);
	__type(value, __u32);	/* api_id */
} entry_ids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);	/* host tid */
	__type(value, struct msprof_call_stack);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);	/* tid */
	__type(value, struct msprof_pending_ioctl);
} ioctls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MSPROF_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* libbpf 1.1 stops at PT_REGS_PARM5. */
#if defined(__TARGET_ARCH_x86)
#define ARG6(x) ((x)->r9)
#elif defined(__TARGET_ARCH_arm64)
#define ARG6(x) (((const volatile struct user_pt_regs *)(x))->regs[5])
#else
#define ARG6(x) 0
#endif

/*
 * The syscall number sys_exit's regs hold: a plain load, where a helper or
 * a map lookup would cost every syscall of the machine.  Elsewhere the
 * ioctls map alone tells.
 */
#if defined(__TARGET_ARCH_x86)
#define SYSCALL_NR(regs) ((long)(regs)->orig_ax)
#elif defined(__TARGET_ARCH_arm64)
#define SYSCALL_NR(regs) ((long)(regs)->syscallno)
#else
#define SYSCALL_NR(regs) ioctl_nr
#endif

_Static_assert((MSPROF_MAX_DEPTH & (MSPROF_MAX_DEPTH - 1)) == 0,
	       "depth is masked into the frames array");

static __always_inline void count(__u32 stat)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &stat);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/*
 * Records are NULL-checked once, right after bpf_ringbuf_reserve(): 6.1's
 * verifier loses a check made in a helper around it and then refuses the
 * program ("Unreleased reference").
 */
static __always_inline int lost(__u32 tgid)
{
	struct msprof_target_info *ti = bpf_map_lookup_elem(&targets, &tgid);

	count(MSPROF_STAT_LOST);
	if (ti)
		__sync_fetch_and_add(&ti->lost, 1);
	return 0;
}

#include "pystack.h"

static __always_inline void submit(void *e)
{
	bpf_ringbuf_submit(e, bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >=
			      wake_bytes ? BPF_RB_FORCE_WAKEUP :
			      BPF_RB_NO_WAKEUP);
}

#include "sched.h"

/* The current thread's ids as msprof sees them; false if it cannot. */
static __always_inline bool current_ids(__u32 *tgid, __u32 *tid)
{
	struct bpf_pidns_info ns;
	__u64 id;

	if (!view_ns_ino) {
		id = bpf_get_current_pid_tgid();
		*tgid = id >> 32;
		*tid = (__u32)id;
		return true;
	}
	if (bpf_get_ns_current_pid_tgid(view_ns_dev, view_ns_ino, &ns, sizeof(ns)))
		return false;
	*tgid = ns.tgid;
	*tid = ns.pid;
	return true;
}

/* The tid as the target sees itself, which its runtime reports. */
static __always_inline __u32 task_tid(const struct msprof_target_info *ti,
				      __u32 tid)
{
	struct bpf_pidns_info ns;

	if (bpf_get_ns_current_pid_tgid(ti->pidns_dev, ti->pidns_ino, &ns,
					sizeof(ns)))
		return tid;
	return ns.pid;
}

/*
 * Which probed function was entered: the attach cookie, or where the kernel
 * has none (before 5.15), the entry address that msprof put in entry_ids.
 */
static __always_inline bool api_id_of(struct pt_regs *ctx, __u32 tgid,
				      __u32 *api_id)
{
	struct msprof_entry_key key = { .tgid = tgid };
	__u32 *id;

	if (use_cookies) {
		*api_id = (__u32)bpf_get_attach_cookie(ctx);
		return true;
	}
	key.addr = PT_REGS_IP(ctx);
	id = bpf_map_lookup_elem(&entry_ids, &key);
	if (!id)
		return false;
	*api_id = *id;
	return true;
}

/*
 * The current thread's state for this window, its ids looked up afresh
 * when it has none yet, or one of an earlier window or of a dead thread
 * with the same tid.  NULL for a thread of no target (or one that cannot
 * be seen from msprof's namespace), and where the map is full.
 */
static __always_inline struct msprof_call_stack *thread_state(__u32 host_tid)
{
	__u64 task = bpf_get_current_task();
	struct msprof_target_info *ti;
	struct msprof_call_stack *st;
	__u32 tgid, tid;

	st = bpf_map_lookup_elem(&stacks, &host_tid);
	if (st && st->window == window && st->task == task)
		return st;
	if (!current_ids(&tgid, &tid))
		return NULL;
	ti = bpf_map_lookup_elem(&targets, &tgid);
	if (!ti)
		return NULL;
	if (!st) {
		static const struct msprof_call_stack empty;

		bpf_map_update_elem(&stacks, &host_tid, &empty, BPF_NOEXIST);
		st = bpf_map_lookup_elem(&stacks, &host_tid);
		if (!st) {
			lost(tgid);
			return NULL;
		}
	}
	st->depth = 0;
	st->window = window;
	st->task = task;
	st->tgid = tgid;
	st->tid = tid;
	st->ns_tid = task_tid(ti, tid);
	st->sys_start = 0;
	st->sys_ns = 0;
	st->sys_named = 0;
	return st;
}

/*
 * A probed call's entry on the thread's stack of frames; arg6 is what its
 * sixth slot keeps (msprof_call_frame).
 */
static __always_inline void push_frame(struct pt_regs *ctx,
				       struct msprof_call_stack *st,
				       __u32 api_id, __u64 arg6)
{
	__u32 d = st->depth;

	if (d < MSPROF_MAX_DEPTH) {
		struct msprof_call_frame *f = &st->frames[d & (MSPROF_MAX_DEPTH - 1)];

		f->api_id = api_id;
		f->sp = PT_REGS_SP(ctx);
		f->args[0] = PT_REGS_PARM1(ctx);
		f->args[1] = PT_REGS_PARM2(ctx);
		f->args[2] = PT_REGS_PARM3(ctx);
		f->args[3] = PT_REGS_PARM4(ctx);
		f->args[4] = PT_REGS_PARM5(ctx);
		f->args[5] = arg6;
		/* Last, so the call's own time leaves out ours. */
		f->start_ns = bpf_ktime_get_ns();
	}
	st->depth = d + 1;
}

/*
 * The frame of the call returning now, popped, with its thread's state in
 * *stp; NULL when there is none to record: no entry of this window was
 * seen, the call was deeper than the frames kept, or its entry came before
 * the probes were attached.
 */
static __always_inline struct msprof_call_frame *
pop_frame(struct pt_regs *ctx, struct msprof_call_stack **stp)
{
	__u32 host_tid = (__u32)bpf_get_current_pid_tgid(), d;
	struct msprof_call_frame *f;
	struct msprof_call_stack *st;

	st = bpf_map_lookup_elem(&stacks, &host_tid);
	if (!st || st->window != window ||
	    st->task != bpf_get_current_task() || !st->depth)
		return NULL;
	d = st->depth - 1;
	if (d >= MSPROF_MAX_DEPTH) {
		st->depth = d;
		return NULL;
	}
	f = &st->frames[d & (MSPROF_MAX_DEPTH - 1)];
	/*
	 * A return whose entry came before the probes were attached belongs
	 * to a call nested inside the recorded one: its stack is deeper.
	 */
	if (PT_REGS_SP(ctx) < f->sp)
		return NULL;
	st->depth = d;
	*stp = st;
	return f;
}

/*
 * A probed function entered inside the window by a target's thread: its
 * state, and in *api_id the probe's id (with its kind's bits); NULL where
 * nothing is to be recorded.
 */
static __always_inline struct msprof_call_stack *
probed_entry(struct pt_regs *ctx, __u32 *api_id)
{
	struct msprof_call_stack *st;

	if (!gate)
		return NULL;
	st = thread_state((__u32)bpf_get_current_pid_tgid());
	/* A target may have been removed since its threads' states were made. */
	if (!st || !bpf_map_lookup_elem(&targets, &st->tgid))
		return NULL;
	/* Only without cookies: a library mapped again inside the window. */
	if (!api_id_of(ctx, st->tgid, api_id)) {
		count(MSPROF_STAT_UNNAMED);
		return NULL;
	}
	return st;
}

SEC("uprobe")
int api_enter(struct pt_regs *ctx)
{
	struct msprof_call_stack *st;
	__u32 api_id;

	st = probed_entry(ctx, &api_id);
	if (!st)
		return 0;
	/* Calls nested in a probed one were made from the same Python line. */
	if (!st->depth)
		st->stack_id = take_pystack(st->tgid, st->tid);
	push_frame(ctx, st, api_id, ARG6(ctx));
	return 0;
}

/*
 * Not gated: a call that entered inside the window is recorded even if it
 * returns just after stop closed the gate.
 */
SEC("uretprobe")
int api_exit(struct pt_regs *ctx)
{
	/* First, so the call's time leaves out ours. */
	__u64 end_ns = bpf_ktime_get_ns();
	struct msprof_call_stack *st = NULL;
	struct msprof_api_event *e;
	struct msprof_call_frame *f;

	f = pop_frame(ctx, &st);
	if (!f || !st)
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return lost(st->tgid);
	e->kind = MSPROF_EV_API;
	e->api_id = f->api_id;
	e->tgid = st->tgid;
	e->tid = st->tid;
	e->start_ns = f->start_ns;
	e->end_ns = end_ns;
	e->ret = PT_REGS_RC(ctx);
	e->depth = st->depth;
	e->ns_tid = st->ns_tid;
	__builtin_memcpy(e->args, f->args, sizeof(e->args));
	e->stack_id = st->stack_id;
	submit(e);
	return 0;
}

/* Device number of the file behind fd in the current task, 0 if none. */
static __always_inline __u32 fd_rdev(unsigned int fd)
{
	/* Not bpf_get_current_task_btf(): that is 5.11 and later. */
	struct task_struct *task = (void *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds;
	struct file *file;

	if (fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]) || !file)
		return 0;
	return BPF_CORE_READ(file, f_inode, i_rdev);
}

/*
 * The argument struct after the call: what the task passed in for a
 * write-only command, what the driver filled in for the others.  As many
 * bytes as the command says (64 at most; 64 if it says none).
 */
static __always_inline void read_payload(struct msprof_ioctl_payload_event *big,
					 const struct msprof_pending_ioctl *p)
{
	__u32 size = (p->cmd >> 16) & 0x3fff;	/* _IOC_SIZE */

	if (!size || size > MSPROF_IOCTL_PAYLOAD)
		size = MSPROF_IOCTL_PAYLOAD;
	__builtin_memset(big->payload, 0, sizeof(big->payload));
	big->pad = 0;
	big->payload_len = 0;
	if (!bpf_probe_read_user(big->payload, size,
				 (const void *)p->arg))
		big->payload_len = size;
}

/*
 * The ioctl of tid ending now, if it is one on a driver's device node:
 * its record, and true; false for any other syscall.
 */
static __always_inline bool ioctl_done(long ret, __u32 tgid, __u32 tid)
{
	struct msprof_ioctl_payload_event *big;
	struct msprof_ioctl_event *e;
	struct msprof_pending_ioctl *p, io;
	__u64 end_ns;

	p = bpf_map_lookup_elem(&ioctls, &tid);
	if (!p)
		return false;
	end_ns = bpf_ktime_get_ns();
	/* A copy: the deleted entry's memory may be reused at once. */
	io = *p;
	bpf_map_delete_elem(&ioctls, &tid);
	if (ioctl_payload) {
		big = bpf_ringbuf_reserve(&events, sizeof(*big), 0);
		if (!big) {
			lost(tgid);
			return true;
		}
		read_payload(big, &io);
		e = &big->io;
	} else {
		e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (!e) {
			lost(tgid);
			return true;
		}
	}
	e->kind = MSPROF_EV_IOCTL;
	e->fd = io.fd;
	e->tgid = tgid;
	e->tid = tid;
	e->start_ns = io.start_ns;
	e->end_ns = end_ns;
	e->ret = ret;
	e->cmd = io.cmd;
	e->dev = io.dev;
	/* e starts the reservation either way. */
	submit(e);
	return true;
}

#include "osrt.h"

SEC("tp_btf/sys_enter")
int BPF_PROG(ioctl_enter, struct pt_regs *regs, long nr)
{
	struct msprof_pending_ioctl p = {};
	__u32 tgid, tid;

	if (osrt)
		osrt_sys_enter(regs, nr);
	if (nr != ioctl_nr || !gate || !current_ids(&tgid, &tid) ||
	    !bpf_map_lookup_elem(&targets, &tgid))
		return 0;
	p.fd = (__u32)PT_REGS_PARM1_CORE_SYSCALL(regs);
	p.dev = fd_rdev(p.fd);
	if (!p.dev || !bpf_map_lookup_elem(&devs, &p.dev))
		return 0;
	p.cmd = (__u32)PT_REGS_PARM2_CORE_SYSCALL(regs);
	p.arg = PT_REGS_PARM3_CORE_SYSCALL(regs);
	p.tgid = tgid;
	p.start_ns = bpf_ktime_get_ns();
	bpf_map_update_elem(&ioctls, &tid, &p, BPF_ANY);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(ioctl_exit, struct pt_regs *regs, long ret)
{
	__u32 tgid, tid;

	/* Loaded without osrt, the verifier drops this branch. */
	if (osrt)
		return osrt_sys_exit(regs, ret);
	/* Every syscall exit of the machine comes here: keep it short. */
	if (SYSCALL_NR(regs) != ioctl_nr || !current_ids(&tgid, &tid))
		return 0;
	ioctl_done(ret, tgid, tid);
	return 0;
}

/*
 * A thread that dies inside a probed call or an ioctl leaves its entry
 * behind; a new thread reusing the tid must not inherit it, and the maps
 * must not fill up with the dead.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(thread_exit, struct task_struct *task)
{
	__u32 host_tid = (__u32)bpf_get_current_pid_tgid();
	__u32 tgid, tid;

	bpf_map_delete_elem(&stacks, &host_tid);
	if (!current_ids(&tgid, &tid))
		return 0;
	bpf_map_delete_elem(&ioctls, &tid);
	return 0;
}

/*
 * Following children (attached only when asked for): a process a target
 * starts is filtered in from its first instruction, and msprof is told so
 * that it can give it probes and a PROF_ directory.  Host view only: in a
 * container's view the child's number is not at hand here.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(task_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	struct msprof_target_info *ti, copy;
	struct msprof_fork_event *e;

	/* A new thread is no new process. */
	if (view_ns_ino || ctgid != (__u32)BPF_CORE_READ(child, pid))
		return 0;
	ti = bpf_map_lookup_elem(&targets, &ptgid);
	if (!ti)
		return 0;
	copy = *ti;
	copy.lost = 0;
	if (bpf_map_update_elem(&targets, &ctgid, &copy, BPF_NOEXIST))
		return 0;
	sched_slots[ctgid & (SCHED_SLOTS - 1)] = 1;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return lost(ptgid);
	e->kind = MSPROF_EV_FORK;
	e->parent_tgid = ptgid;
	e->child_tgid = ctgid;
	e->pad = 0;
	submit(e);
	return 0;
}

/*
 * User marks (--msproftx=on): CANN's mstx functions, probed by programs of
 * their own.  The entry reads the message (the task may free it once the
 * call returns) into the thread's pending call; the return adds what the
 * call returned (a range's id, a domain) and records it.  A thread has one
 * mstx call open at a time: they call no other.
 */
struct mstx_pending {
	__u32 window;	/* the window of the entry */
	__u32 pad;
	__u64 task;	/* the thread's task_struct, as in msprof_call_stack */
	struct msprof_mstx_event e;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);	/* host tid */
	__type(value, struct mstx_pending);
} mstx_calls SEC(".maps");

/* Where the kind keeps its message, -1 if it has none. */
static __always_inline int mstx_msg_arg(__u32 kind)
{
	switch (kind) {
	case MSTX_MARK:
	case MSTX_RANGE_START:
	case MSTX_DOMAIN_CREATE:
		return 0;
	case MSTX_DOMAIN_MARK:
	case MSTX_DOMAIN_RANGE_START:
		return 1;
	}
	return -1;
}

/* The message, bounded: hostile bytes of any length end at our limit. */
static __always_inline void mstx_read_msg(struct msprof_mstx_event *e,
					  const void *msg)
{
	long n = bpf_probe_read_user_str(e->msg, sizeof(e->msg), msg);

	e->flags = 0;
	e->msg_len = 0;
	if (n <= 0) {
		e->flags = MSTX_MSG_BAD;
		return;
	}
	e->msg_len = (__u16)(n - 1);
	if (n == sizeof(e->msg))
		e->flags = MSTX_MSG_CUT;
}

/*
 * The arguments a kind has besides its message, from the first three
 * (loaded before any branch: the verifier refuses a load from the context
 * at an offset the compiler computed).
 */
static __always_inline void mstx_args(const __u64 *a,
				      struct msprof_mstx_event *e)
{
	bool in_domain = e->mstx >= MSTX_DOMAIN_MARK;

	e->domain = in_domain ? a[0] : 0;
	e->stream = 0;
	e->id = 0;
	if (e->mstx == MSTX_MARK || e->mstx == MSTX_RANGE_START)
		e->stream = a[1];
	else if (e->mstx == MSTX_DOMAIN_MARK || e->mstx == MSTX_DOMAIN_RANGE_START)
		e->stream = a[2];
	else if (e->mstx == MSTX_RANGE_END)
		e->id = a[0];
	else if (e->mstx == MSTX_DOMAIN_RANGE_END)
		e->id = a[1];
}

SEC("uprobe")
int mstx_enter(struct pt_regs *ctx)
{
	static const struct mstx_pending empty;
	__u32 host_tid = (__u32)bpf_get_current_pid_tgid(), tgid, v;
	struct msprof_call_stack *st;
	struct mstx_pending *p;
	__u64 a[4];
	int at;

	if (!gate)
		return 0;
	/* The thread's ids, looked up once a window, as an API call's are. */
	st = thread_state(host_tid);
	if (!st || !bpf_map_lookup_elem(&targets, &st->tgid))
		return 0;
	tgid = st->tgid;
	if (!api_id_of(ctx, tgid, &v) || !(v >> MSTX_KIND_SHIFT) ||
	    (v >> MSTX_KIND_SHIFT) >= MSTX_KINDS) {
		count(MSPROF_STAT_UNNAMED);
		return 0;
	}
	p = bpf_map_lookup_elem(&mstx_calls, &host_tid);
	if (!p) {
		bpf_map_update_elem(&mstx_calls, &host_tid, &empty, BPF_ANY);
		p = bpf_map_lookup_elem(&mstx_calls, &host_tid);
		if (!p)
			return lost(tgid);
	}
	p->window = window;
	p->task = bpf_get_current_task();
	p->e.kind = MSPROF_EV_MSTX;
	p->e.api_id = v & MSTX_API_MASK;
	p->e.mstx = (__u16)(v >> MSTX_KIND_SHIFT);
	p->e.tgid = tgid;
	p->e.tid = st->tid;
	p->e.ns_tid = st->ns_tid;
	/* The Python line of the mark, walked as an API call's entry walks it. */
	p->e.stack_id = take_pystack(tgid, st->tid);
	p->e.pad = 0;
	a[0] = PT_REGS_PARM1(ctx);
	a[1] = PT_REGS_PARM2(ctx);
	a[2] = PT_REGS_PARM3(ctx);
	a[3] = 0;
	asm volatile("" : : "r"(a) : "memory");
	mstx_args(a, &p->e);
	at = mstx_msg_arg(p->e.mstx);
	if (at >= 0) {
		mstx_read_msg(&p->e, (const void *)a[at & 3]);
	} else {
		p->e.flags = 0;
		p->e.msg_len = 0;
	}
	/* Last, so the call's own time leaves out ours. */
	p->e.start_ns = bpf_ktime_get_ns();
	return 0;
}

/* Not gated, as api_exit: a call that entered in the window is recorded. */
SEC("uretprobe")
int mstx_exit(struct pt_regs *ctx)
{
	__u64 end_ns = bpf_ktime_get_ns();
	__u32 host_tid = (__u32)bpf_get_current_pid_tgid();
	struct msprof_mstx_event *e;
	struct mstx_pending *p;

	p = bpf_map_lookup_elem(&mstx_calls, &host_tid);
	/* None, or one of an earlier window or of a dead thread: no entry seen. */
	if (!p || p->window != window || p->task != bpf_get_current_task())
		return 0;
	p->task = 0;
	p->e.end_ns = end_ns;
	if (p->e.mstx == MSTX_RANGE_START || p->e.mstx == MSTX_DOMAIN_RANGE_START ||
	    p->e.mstx == MSTX_DOMAIN_CREATE)
		p->e.id = PT_REGS_RC(ctx);
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return lost(p->e.tgid);
	__builtin_memcpy(e, &p->e, sizeof(*e));
	submit(e);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
