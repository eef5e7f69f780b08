/* SPDX-License-Identifier: MIT */
/*
 * Records that the BPF programs write into the ring buffer.  This header is
 * compiled both against vmlinux.h (bpf/) and against libc (user/), so it may
 * only use the __u32-style types both worlds define.
 */
#ifndef MSPROF_EVENTS_H
#define MSPROF_EVENTS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "msprof/pystack.h"

/* Most API functions one controller probes at once (cookie = index). */
#define MSPROF_MAX_APIS		256
/* Nesting depth of probed calls kept per thread (acl -> rt -> ...). */
#define MSPROF_MAX_DEPTH	8
/* Most target processes filtered in the kernel. */
#define MSPROF_MAX_TARGETS	256
/* Most driver device numbers whose ioctls are kept. */
#define MSPROF_MAX_DEVS		64
/*
 * Most probed entry addresses (kernels before 5.15): every function for
 * every target, since a target's go when it does.
 */
#define MSPROF_MAX_ENTRIES	(MSPROF_MAX_TARGETS * MSPROF_MAX_APIS)
/* The ring buffer's bytes without --buffer-size (a power of two). */
#define MSPROF_RINGBUF_BYTES	(8u << 20)

enum msprof_event_kind {
	MSPROF_EV_API = 1,
	MSPROF_EV_IOCTL = 2,
	MSPROF_EV_FORK = 3,
	MSPROF_EV_PYSTACK = 4,	/* struct msprof_pystack_event (pystack.h) */
};

/* A target started a process, which is now a target too. */
struct msprof_fork_event {
	__u32 kind;		/* MSPROF_EV_FORK */
	__u32 parent_tgid;	/* both as msprof sees them */
	__u32 child_tgid;
	__u32 pad;
};

/*
 * What the kernel side knows of each target: the value in its targets map.
 * Pids and tids in records are as msprof sees them; the task's own pid
 * namespace gives the ids its runtime reports (a container's view).
 */
struct msprof_target_info {
	__u64 pidns_dev;	/* st_dev and st_ino of /proc/<pid>/ns/pid */
	__u64 pidns_ino;
	__u64 lost;		/* its records the ring buffer had no room for */
};

/*
 * A probed call's entry, kept until its return.  A pthread call of
 * --host-sys=osrt (four arguments at most) keeps in args[5] the thread's
 * time in syscalls at its entry (msprof_call_stack.sys_ns).
 */
struct msprof_call_frame {
	__u64 start_ns;
	__u64 sp;	/* at entry: its return comes back to this stack depth */
	__u32 api_id;
	__u32 pad;
	__u64 args[6];
};

/*
 * A thread's state, keyed by its host tid, which needs no namespace lookup:
 * its ids are looked up once a window.  task tells a thread that took over
 * a dead one's tid (between windows, or after an exec) from the old one.
 * msprof reads the head at stop to count the calls still open.
 */
struct msprof_call_stack {
	__u32 depth;	/* may exceed MSPROF_MAX_DEPTH; deeper frames go unrecorded */
	__u32 window;	/* the window the state belongs to */
	__u64 task;	/* the thread's task_struct */
	__u32 tgid;	/* as msprof sees them */
	__u32 tid;
	__u32 ns_tid;	/* as the task sees itself */
	__u32 pad;
	__u64 stack_id;	/* the outermost call's Python stack, which nested ones share */
	/*
	 * --host-sys=osrt: the syscall open (sys_start 0: none), and the time
	 * the thread spent in syscalls so far in the window.
	 */
	__u64 sys_start;
	__u64 sys_ns;
	__u64 sys_args[6];
	__u32 sys_nr;
	__u32 sys_named;	/* its name was recorded in this window */
	struct msprof_call_frame frames[MSPROF_MAX_DEPTH];
};

/* An ioctl's entry, kept until its return; msprof counts those left open. */
struct msprof_pending_ioctl {
	__u64 start_ns;
	__u32 fd;
	__u32 cmd;
	__u32 dev;
	__u32 tgid;	/* as msprof sees it */
	__u64 arg;	/* the argument: a user pointer for most commands */
};

/*
 * Kernels before 5.15 have no attach cookies: there a probed function is
 * known by its entry address in the target.
 */
struct msprof_entry_key {
	__u32 tgid;		/* as msprof sees it */
	__u32 pad;
	__u64 addr;		/* the function's first instruction */
};

/* One probed runtime API call, from its entry and its return. */
struct msprof_api_event {
	__u32 kind;		/* MSPROF_EV_API */
	__u32 api_id;		/* index into the controller's probe table */
	__u32 tgid;		/* pid of the task, as msprof sees it */
	__u32 tid;
	__u64 start_ns;		/* CLOCK_MONOTONIC */
	__u64 end_ns;
	__s64 ret;
	__u32 depth;		/* 0 = outermost probed call on this thread */
	__u32 ns_tid;		/* tid as the task sees itself (its runtime's view) */
	__u64 args[6];		/* argument registers at entry (MSPROF_PROBE_ARGS) */
	__u64 stack_id;		/* its Python stack, or enum msprof_pystack_none */
};

/* One ioctl on a driver device node of the target. */
struct msprof_ioctl_event {
	__u32 kind;		/* MSPROF_EV_IOCTL */
	__u32 fd;
	__u32 tgid;
	__u32 tid;
	__u64 start_ns;
	__u64 end_ns;
	__s64 ret;
	__u32 cmd;
	__u32 dev;		/* kernel encoding: major << 20 | minor */
};

/*
 * What the records of a target's calls (API, ioctl) share, read by the
 * ring buffer's consumer before it knows the kind (user/host/collector.c):
 * the kind first and the target's tgid at one offset.  A fork record shares
 * the kind alone.  No record embeds this head; each kind's fields are
 * checked to sit where it has them.
 */
struct msprof_event_head {
	__u32 kind;		/* enum msprof_event_kind */
	__u32 kind_word;	/* the kind's own: api_id, fd */
	__u32 tgid;
};

#define MSPROF_EV_SHARES(type, field)					\
	_Static_assert(__builtin_offsetof(struct type, field) ==		\
		       __builtin_offsetof(struct msprof_event_head, field) &&	\
		       sizeof(((struct type *)0)->field) ==			\
		       sizeof(((struct msprof_event_head *)0)->field),		\
		       #type "." #field " is where struct msprof_event_head has it")
MSPROF_EV_SHARES(msprof_api_event, kind);
MSPROF_EV_SHARES(msprof_api_event, tgid);
MSPROF_EV_SHARES(msprof_ioctl_event, kind);
MSPROF_EV_SHARES(msprof_ioctl_event, tgid);
MSPROF_EV_SHARES(msprof_fork_event, kind);
MSPROF_EV_SHARES(msprof_pystack_event, kind);
MSPROF_EV_SHARES(msprof_pystack_event, tgid);
#undef MSPROF_EV_SHARES

/* Most bytes of an ioctl's argument struct kept with --ioctl-payload=on. */
#define MSPROF_IOCTL_PAYLOAD 64

/* The same, followed by the argument struct as the call returned. */
struct msprof_ioctl_payload_event {
	struct msprof_ioctl_event io;
	__u32 payload_len;	/* bytes read; 0 if the pointer was bad */
	__u32 pad;
	__u8 payload[MSPROF_IOCTL_PAYLOAD];
};

/*
 * Per-CPU counters the BPF side keeps, indexes of its stats map.  Only
 * what goes wrong is counted: a count per record would cost every call.
 */
enum msprof_stat {
	MSPROF_STAT_LOST,	/* records dropped: ring buffer full */
	MSPROF_STAT_UNNAMED,	/* entries at an address msprof did not name */
	MSPROF_STAT_PY_LOST,	/* Python stacks dropped: ring buffer full */
	/* osrt: blocking pthread calls that waited less than --osrt-threshold */
	MSPROF_STAT_OSRT_SHORT,
	MSPROF_STAT_MAX,
};

/* Kernel dev_t layout, which differs from glibc's makedev(). */
#define MSPROF_KDEV(major, minor) (((__u32)(major) << 20) | (__u32)(minor))

#endif
