/* SPDX-License-Identifier: MIT */
/*
 * User marks (mstx, --msproftx=on): the record the BPF side writes for
 * each call of CANN's mstx functions (libms_tools_ext.so) and msprof keeps
 * in the target's host file.  Compiled against vmlinux.h (bpf/) and libc
 * (user/), as events.h is; its numbers are kept clear of events.h's and
 * recfile.h's own.
 */
#ifndef MSPROF_MSTX_H
#define MSPROF_MSTX_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Ring-buffer kind and host-file record type of struct msprof_mstx_event. */
#define MSPROF_EV_MSTX		16
#define MSPROF_REC_MSTX		16

/*
 * Bytes of a message read at the call, its NUL included: CANN takes 156
 * at most from msprof's users, so a longer one is cut (MSTX_MSG_CUT).
 */
#define MSPROF_MSTX_MSG		160

/*
 * What a probed mstx function does, which says which arguments hold the
 * message, the stream, the domain and the range id.  The cookie (or,
 * without cookies, the entry address's value) of an mstx probe is its API
 * id | kind << MSTX_KIND_SHIFT.
 */
enum msprof_mstx_kind {
	MSTX_NONE,
	MSTX_MARK,		/* mstxMarkA(message, stream) */
	MSTX_RANGE_START,	/* id = mstxRangeStartA(message, stream) */
	MSTX_RANGE_END,		/* mstxRangeEnd(id) */
	MSTX_DOMAIN_CREATE,	/* domain = mstxDomainCreateA(name) */
	MSTX_DOMAIN_MARK,	/* mstxDomainMarkA(domain, message, stream) */
	MSTX_DOMAIN_RANGE_START, /* id = mstxDomainRangeStartA(domain, message, stream) */
	MSTX_DOMAIN_RANGE_END,	/* mstxDomainRangeEnd(domain, id) */
	MSTX_KINDS,
};

#define MSTX_KIND_SHIFT		16
#define MSTX_API_MASK		0xffffu

/* msg was cut at MSPROF_MSTX_MSG - 1 bytes; the pointer could not be read. */
#define MSTX_MSG_CUT		1u
#define MSTX_MSG_BAD		2u

/*
 * One mstx call, from its entry (the message, read there: the task may free
 * it once the call returns) and its return (a start's range id, a domain's
 * handle).  The host file keeps it up to msg's msg_len bytes.
 */
struct msprof_mstx_event {
	__u32 kind;		/* MSPROF_EV_MSTX */
	__u32 api_id;		/* the function, named as an API id is */
	__u32 tgid;		/* as msprof sees them */
	__u32 tid;
	__u32 ns_tid;		/* as the task sees itself */
	__u16 mstx;		/* enum msprof_mstx_kind */
	__u16 msg_len;		/* bytes of msg, its NUL not counted */
	__u64 start_ns;		/* CLOCK_MONOTONIC, at entry */
	__u64 end_ns;		/* at return */
	__u64 id;		/* a range's id (start: returned; end: passed), a created domain */
	__u64 domain;		/* the domain handle passed; 0: the default domain */
	__u64 stream;
	/*
	 * The Python stack of the call, as msprof_api_event's stack_id: the
	 * entry walks it as an API entry does (its record comes first), or
	 * says why there is none (enum msprof_pystack_none).
	 */
	__u64 stack_id;
	__u32 flags;		/* MSTX_MSG_* */
	__u32 pad;
	char msg[MSPROF_MSTX_MSG];	/* not NUL-terminated in the host file */
};

/* Bytes of a host-file record before its message. */
#define MSPROF_MSTX_HEAD	__builtin_offsetof(struct msprof_mstx_event, msg)

_Static_assert(__builtin_offsetof(struct msprof_mstx_event, api_id) == 4 &&
	       __builtin_offsetof(struct msprof_mstx_event, tgid) == 8,
	       "kind, kind word and tgid where struct msprof_event_head has them");

#endif
