/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The calling thread's CPython frames, walked at a probed call's entry.
 * Only reads: a bad pointer ends the walk, never the task.  Constant bounds
 * only (5.10 has no bpf_loop); user space turns the frames into lines.
 */
#ifndef MSPROF_BPF_PYSTACK_H
#define MSPROF_BPF_PYSTACK_H

#include "msprof/pystack.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MSPROF_MAX_TARGETS);
	__type(key, __u32);	/* tgid as msprof sees it */
	__type(value, struct msprof_py_conf);
} pyconf SEC(".maps");

/* The record is built here: it is far larger than the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct msprof_pystack_event);
} pyscratch SEC(".maps");

/*
 * Frames' bytes: a window of the data stack, [base, end) of the thread's
 * memory, then room for a frame read alone (one outside the window), which
 * also keeps a frame's masked field offsets inside for any frame in the
 * window.  The bounds live here, not on the BPF stack, so that every way
 * the window's read went leaves the walk's loop in one verifier state.
 */
struct py_frames_buf {
	__u64 base, end;
	__u8 win[MSPROF_PY_WINDOW + MSPROF_PY_FRAME_READ];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_frames_buf);
} pyframe SEC(".maps");

/* Per-CPU, since 5.10 cannot fetch-and-add: ids are counter and CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} pyseq SEC(".maps");

/* The thread pointer, which glibc keeps its struct pthread beside. */
static __always_inline __u64 thread_pointer(void)
{
	struct task_struct *task = (void *)bpf_get_current_task();

#if defined(__TARGET_ARCH_x86)
	return BPF_CORE_READ(task, thread.fsbase);
#elif defined(__TARGET_ARCH_arm64)
	return BPF_CORE_READ(task, thread.uw.tp_value);
#else
	return 0;
#endif
}

static __always_inline __u64 read_ptr(__u64 addr)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (const void *)addr))
		return 0;
	return v;
}

/* The thread's PyThreadState, from CPython's pthread key; 0 if none. */
static __always_inline __u64 thread_state_of(const struct msprof_py_conf *c)
{
	__u64 self = thread_pointer() - c->tp_self_sub;
	__u64 block;

	block = c->block_off ? self + c->block_off :
		read_ptr(self + c->specific_off + 8 * (c->key / 32));
	if (!block)
		return 0;
	return read_ptr(block + c->slot_size * (c->key % 32) + c->slot_data);
}

/* A field of the frame at p; offsets are masked into the buffer. */
#define FRAME_U64(p, off) (*(__u64 *)((p) + ((off) & (MSPROF_PY_FRAME_READ - 8))))

/*
 * Fills the window with the bytes below the innermost frame's end (3.11+:
 * its callers sit there), down to the window's size or, if the memory
 * there is not all mapped, to the start of the page the frame lies in
 * (mapped, at 4 KiB or any larger page size).  Read once: a window that
 * moved inside the walk made each frame's state differ, and the verifier's
 * walk of the loop grew past its limit.  Neither read: an empty window.
 */
static __always_inline void read_window(const struct msprof_py_conf *c,
					__u64 frame, __u32 size,
					struct py_frames_buf *b)
{
	__u64 end = frame + size;
	__u32 len = c->window;

	if (len > MSPROF_PY_WINDOW)
		len = MSPROF_PY_WINDOW;
	b->base = end - len;
	b->end = end;
	if (end > len &&
	    !bpf_probe_read_user(b->win, len, (const void *)b->base))
		return;
	/* From the page's start: at most the window. */
	len = (__u32)(frame & (MSPROF_PY_WINDOW - 1)) + size;
	if (len > MSPROF_PY_WINDOW)
		len = MSPROF_PY_WINDOW;
	b->base = end - len;
	if (bpf_probe_read_user(b->win, len, (const void *)b->base))
		b->end = b->base;
}

/*
 * Where frame's bytes (size of them) begin in b: in the window, or read
 * alone into the slack after it; -1 if they cannot be read.  Either way
 * under MSPROF_PY_WINDOW + 1, so that the masked field offsets stay in b.
 */
static __always_inline long frame_offset(__u64 frame, __u32 size,
					 struct py_frames_buf *b)
{
	if (frame >= b->base && frame < b->end && b->end - frame >= size)
		return (long)((frame - b->base) & (MSPROF_PY_WINDOW - 1));
	if (bpf_probe_read_user(b->win + MSPROF_PY_WINDOW, size, (const void *)frame))
		return -1;
	return MSPROF_PY_WINDOW;
}

/*
 * Fills e's frames from the innermost frame on; returns how many.  Shim
 * frames are kept too, for msprof to drop: a second count that a skip
 * would make diverge from the loop's own multiplies the verifier's states.
 */
static __always_inline __u32 walk_frames(const struct msprof_py_conf *c,
					 __u64 frame,
					 struct msprof_pystack_event *e,
					 struct py_frames_buf *b)
{
	__u32 size = c->f.fr_read, i;
	__u64 mask = c->f.instr_ptr ? ~0ull : 0;

	if (size > MSPROF_PY_FRAME_READ || size < 8)
		return 0;
	b->base = 0;
	b->end = 0;
	if (c->window)
		read_window(c, frame, size, b);
	for (i = 0; i < MSPROF_PY_MAX_DEPTH; i++) {
		struct msprof_py_frame *f;
		__u64 code;
		long off;
		__u8 *p;

		if (!frame)
			return i;
		if (i >= c->depth) {
			e->flags |= MSPROF_PYSTACK_CUT;
			return i;
		}
		off = frame_offset(frame, size, b);
		if (off < 0 || off > MSPROF_PY_WINDOW) {
			e->flags |= MSPROF_PYSTACK_BAD_FRAME;
			return i;
		}
		p = b->win + off;
		f = &e->frames[i & (MSPROF_PY_MAX_DEPTH - 1)];
		code = FRAME_U64(p, c->f.fr_code);
		f->code = code;
		f->instr = (__s32)(FRAME_U64(p, c->f.fr_instr) - (code & mask));
		f->owner = p[c->f.fr_owner & (MSPROF_PY_FRAME_READ - 1)];
		frame = FRAME_U64(p, c->f.fr_back);
	}
	if (frame)
		e->flags |= MSPROF_PYSTACK_CUT;
	return i;
}

static __always_inline __u64 next_stack_id(void)
{
	__u32 zero = 0;
	__u64 *seq = bpf_map_lookup_elem(&pyseq, &zero);

	if (!seq)
		return MSPROF_PYSTACK_LOST;
	*seq += 1;
	return *seq << MSPROF_PYSTACK_CPU_BITS |
	       (bpf_get_smp_processor_id() & ((1u << MSPROF_PYSTACK_CPU_BITS) - 1));
}

/*
 * The current thread's stack as a record; its id, or why there is none
 * (enum msprof_pystack_none).  A global function: the verifier walks it
 * once, on its own, not once for each state its callers reach it in,
 * which multiplied the walk's branches past a million instructions.
 */
__noinline __u64 take_pystack(__u32 tgid, __u32 tid)
{
	const struct msprof_py_conf *c = bpf_map_lookup_elem(&pyconf, &tgid);
	struct msprof_pystack_event *e;
	__u32 zero = 0, n;
	struct py_frames_buf *buf;
	__u64 ts, frame;

	if (!c)
		return MSPROF_PYSTACK_OFF;
	ts = thread_state_of(c);
	if (!ts)
		return MSPROF_PYSTACK_NO_THREAD;
	if (bpf_probe_read_user(&frame, sizeof(frame),
				(const void *)(ts + c->f.ts_frame)))
		return MSPROF_PYSTACK_FAULT;
	if (frame && c->f.cf_frame != MSPROF_PY_NONE)
		frame = read_ptr(frame + c->f.cf_frame);
	if (!frame)
		return MSPROF_PYSTACK_NO_FRAMES;
	e = bpf_map_lookup_elem(&pyscratch, &zero);
	buf = bpf_map_lookup_elem(&pyframe, &zero);
	if (!e || !buf)
		return MSPROF_PYSTACK_LOST;
	e->kind = MSPROF_EV_PYSTACK;
	e->flags = 0;
	e->tgid = tgid;
	e->tid = tid;
	n = walk_frames(c, frame, e, buf);
	if (!n)
		return e->flags & MSPROF_PYSTACK_BAD_FRAME ? MSPROF_PYSTACK_FAULT :
		       MSPROF_PYSTACK_NO_FRAMES;
	if (n > MSPROF_PY_MAX_DEPTH)
		n = MSPROF_PY_MAX_DEPTH;
	e->nframes = (__u16)n;
	e->stack_id = next_stack_id();
	if (e->stack_id == MSPROF_PYSTACK_LOST)
		return MSPROF_PYSTACK_LOST;
	if (bpf_ringbuf_output(&events, e, MSPROF_PYSTACK_HEAD +
			       n * sizeof(struct msprof_py_frame),
			       BPF_RB_NO_WAKEUP)) {
		count(MSPROF_STAT_PY_LOST);
		return MSPROF_PYSTACK_LOST;
	}
	return e->stack_id;
}

#endif
