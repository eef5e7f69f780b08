/* SPDX-License-Identifier: MIT */
/*
 * OS runtime calls (--host-sys=osrt): the records the BPF side writes for
 * the targets' syscalls and pthread calls, and msprof keeps in the host
 * file beside what it writes as msprof's host_syscall.data and
 * host_pthreadcall.data.  Compiled against vmlinux.h (bpf/) and libc
 * (user/), as events.h is; its numbers are kept clear of events.h's,
 * recfile.h's and mstx.h's.
 */
#ifndef MSPROF_OSRT_H
#define MSPROF_OSRT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Ring-buffer kind and host-file record type of every record below. */
#define MSPROF_EV_OSRT		17
#define MSPROF_REC_OSRT		17

/* What an osrt record is: its what field. */
enum msprof_osrt_what {
	OSRT_SYSCALL = 1,	/* struct msprof_osrt_event: id is the syscall's number */
	OSRT_PTHREAD = 2,	/* struct msprof_osrt_event: id is the function's API id */
	OSRT_COMM = 3,		/* struct msprof_osrt_comm: a thread's name */
	OSRT_SYSNAME = 4,	/* struct msprof_osrt_sysname: msprof names a number */
};

/*
 * What a probed pthread function is, the high bits of its cookie (or,
 * without cookies, of its entry address's value), as MSTX_KIND_SHIFT
 * places an mstx function's: one of the four msprof keeps (always
 * recorded), or a call that can block (recorded only when it spent at
 * least --osrt-threshold in syscalls: it waited).
 */
enum msprof_osrt_kind {
	OSRT_KIND_NONE,
	OSRT_KIND_KEPT,
	OSRT_KIND_BLOCKING,
	OSRT_KINDS,
};

#define OSRT_KIND_SHIFT		16
#define OSRT_API_MASK		0xffffu

/* Argument registers a record keeps: a syscall's six. */
#define MSPROF_OSRT_ARGS	6

/* What a record of a thread's call or name begins with. */
struct msprof_osrt_head {
	__u32 kind;		/* MSPROF_EV_OSRT */
	__u16 what;		/* enum msprof_osrt_what */
	__u16 pad;
	__u32 tgid;		/* as msprof sees them */
	__u32 tid;
	__u32 ns_tid;		/* as the task sees itself */
};

/* One completed syscall or pthread call of a target's thread. */
struct msprof_osrt_event {
	struct msprof_osrt_head h;	/* what: OSRT_SYSCALL, OSRT_PTHREAD */
	__u32 id;		/* the syscall's number; the function's API id */
	__u64 start_ns;		/* CLOCK_MONOTONIC, at entry */
	__u64 end_ns;		/* at return */
	__s64 ret;
	/*
	 * A pthread call's time in syscalls between its entry and return
	 * (the futex waits of a lock that was held): what --osrt-threshold
	 * is held to.  0 for a syscall.
	 */
	__u64 blocked_ns;
	__u64 args[MSPROF_OSRT_ARGS];	/* argument registers at entry */
};

/*
 * A thread's name (its comm), at its first syscall of the window and after
 * each prctl(PR_SET_NAME) of its own: the syscall lines name it.
 */
struct msprof_osrt_comm {
	struct msprof_osrt_head h;	/* what: OSRT_COMM */
	__u32 pad;
	char comm[16];		/* the kernel's, NUL-padded */
};

/*
 * Written by msprof itself, before the first record of a syscall number:
 * the name its build knows for it, so that a window recorded on one
 * architecture exports anywhere.  name holds the rest of the record, not
 * NUL-terminated.
 */
struct msprof_osrt_sysname {
	__u32 kind;		/* MSPROF_EV_OSRT */
	__u16 what;		/* OSRT_SYSNAME */
	__u16 pad;
	__u32 nr;
	char name[];
};

#define MSPROF_OSRT_NAME_MAX	64

_Static_assert(sizeof(struct msprof_osrt_sysname) + MSPROF_OSRT_NAME_MAX <=
	       sizeof(struct msprof_osrt_event) &&
	       sizeof(struct msprof_osrt_comm) <= sizeof(struct msprof_osrt_event),
	       "a call's record is the largest of the kind (recfile's bound)");

_Static_assert(__builtin_offsetof(struct msprof_osrt_head, tgid) == 8 &&
	       __builtin_offsetof(struct msprof_osrt_sysname, nr) == 8,
	       "kind, kind word and tgid where struct msprof_event_head has them");

#endif
