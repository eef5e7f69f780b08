/* SPDX-License-Identifier: MIT */
/*
 * CPython stacks taken in the kernel at a probed call: how msprof tells the
 * BPF side where a target's thread states and frames are, and the record
 * the walk leaves.  Compiled against vmlinux.h (bpf/) and libc (user/).
 */
#ifndef MSPROF_PYSTACK_H
#define MSPROF_PYSTACK_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Most Python frames kept per call (--python-depth), a power of two. */
#define MSPROF_PY_MAX_DEPTH	128
/*
 * Frames the kernel takes past --python-depth where 3.12 and 3.13 put a
 * shim frame at each C to Python boundary, which msprof then drops.
 */
#define MSPROF_PY_SHIM_SLACK	16
/* A field this version has not. */
#define MSPROF_PY_NONE		0xffff
/* Most bytes of a frame read at once (a power of two: offsets are masked). */
#define MSPROF_PY_FRAME_READ	0x80
/*
 * Most bytes of a thread's data stack read at once where its frames sit
 * side by side (3.11+), a power of two: one read of many frames costs
 * little more than one of a frame, and the walk's cost is its reads.
 */
#define MSPROF_PY_WINDOW	0x1000
/* A window's bytes per frame asked for: a typical frame and its locals. */
#define MSPROF_PY_WINDOW_PER_FRAME	0xa0

/*
 * Where a version keeps the frames: the fields the kernel's walk reads
 * (offsets in bytes; MSPROF_PY_NONE: this version has not the field).
 */
struct msprof_py_frames {
	__u16 ts_frame;		/* thread state: innermost frame (or cframe) */
	__u16 cf_frame;		/* cframe: innermost frame; NONE: no cframe */
	__u16 fr_back;		/* frame: its caller */
	__u16 fr_code;		/* frame: code object */
	__u16 fr_instr;		/* frame: instruction (an int, or a pointer) */
	__u16 fr_owner;		/* frame: owner byte (before 3.11: any byte) */
	__u16 fr_read;		/* bytes of a frame to read, at most FRAME_READ */
	__u8 instr_ptr;		/* fr_instr is a pointer: kept as code + offset */
	__u8 adjacent;		/* frames sit side by side, the callers below */
};

/*
 * Where the calling thread's innermost frame is, from the thread pointer,
 * for one target (the value in the BPF pyconf map, keyed by tgid).  The
 * thread state is found through CPython's pthread key (autoTSSkey), which
 * holds it also while the thread has let go of the GIL, as it has in a
 * launch; glibc's layout of the key's slot comes from the descriptors
 * glibc keeps for libthread_db, read from the target's libc.
 */
struct msprof_py_conf {
	__u64 tp_self_sub;	/* thread pointer - this = its struct pthread */
	__u32 specific_off;	/* struct pthread.specific: blocks of key slots */
	__u32 key;		/* CPython's pthread key */
	__u32 slot_size;	/* bytes a key's slot takes in a block */
	__u32 slot_data;	/* its value's offset in the slot */
	struct msprof_py_frames f;
	__u16 depth;		/* frames taken: --python-depth, and shim slack */
	__u16 window;		/* bytes read at once below a frame; 0: none */
	/*
	 * The key's block of slots from struct pthread, where every thread
	 * had it at one offset at start; 0: read its pointer each time.
	 */
	__u16 block_off;
	__u16 pad;
};

/* One frame: its code object and where in it the thread is. */
struct msprof_py_frame {
	__u64 code;		/* PyCodeObject * in the target */
	__s32 instr;		/* f_lasti, or the instruction's byte offset from code */
	__u8 owner;		/* 3.11+: 1 a generator's frame, 3 (3.12+) a shim */
	__u8 pad[3];
};

/*
 * A call's stack_id when it has no stack, and why; ids of real stacks are
 * from MSPROF_PYSTACK_FIRST on.
 */
enum msprof_pystack_none {
	MSPROF_PYSTACK_OFF = 0,		/* not a Python target, or stacks off */
	MSPROF_PYSTACK_NO_THREAD,	/* the thread never ran Python */
	MSPROF_PYSTACK_NO_FRAMES,	/* it has a thread state but no frame */
	MSPROF_PYSTACK_FAULT,		/* the thread state could not be read */
	MSPROF_PYSTACK_LOST,		/* the ring buffer had no room */
	MSPROF_PYSTACK_FIRST = 16,
};

/* Per-CPU counters make ids unique: counter << CPU_BITS | cpu. */
#define MSPROF_PYSTACK_CPU_BITS	12

enum msprof_pystack_flags {
	MSPROF_PYSTACK_CUT = 1,		/* more frames than the depth kept */
	MSPROF_PYSTACK_BAD_FRAME = 2,	/* a frame could not be read: walk ended */
};

/* The frames behind stack_id, innermost first (MSPROF_EV_PYSTACK). */
struct msprof_pystack_event {
	__u32 kind;		/* MSPROF_EV_PYSTACK */
	__u16 nframes;
	__u16 flags;		/* enum msprof_pystack_flags */
	__u32 tgid;		/* as msprof sees it */
	__u32 tid;
	__u64 stack_id;
	struct msprof_py_frame frames[MSPROF_PY_MAX_DEPTH];
};

#define MSPROF_PYSTACK_HEAD	__builtin_offsetof(struct msprof_pystack_event, frames)

#endif
