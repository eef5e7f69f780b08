/* SPDX-License-Identifier: MIT */
/*
 * Task queues: a runtime that hands each op from the calling thread to a
 * worker of its own (torch_npu's TASK_QUEUE_ENABLE, npusim's npusimQueue)
 * makes its ACL calls on a thread with no Python frames.  Each call made
 * inside a dequeue is given the dequeue's enqueue: its connection id and,
 * where it has one, its Python stack (docs/probes.md).
 */
#ifndef MSPROF_QUEUE_MATCH_H
#define MSPROF_QUEUE_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "profdata.h"

/* A queue function's call among the window's: what pairing needs of it. */
struct queue_call {
	uint64_t key;		/* its key argument's value */
	uint32_t call;		/* its place in the calls */
	uint8_t role;		/* enum msprof_probe_role: enqueue or dequeue */
	uint8_t key_kind;	/* enum msprof_queue_key */
};

/*
 * Pairs the dequeues among qc (reordered) with their enqueues and gives
 * each dequeue, and every call nested in it on its thread, the enqueue's
 * connection id (.enqueue) and its stack where it has one.  calls are as
 * profdata keeps them (by thread, then start, then depth).  An item key
 * takes its latest enqueue that started before the dequeue; a queue key
 * pairs the n-th dequeue with the n-th enqueue, shifted by the items the
 * window began with (the most the calls' times allow: see the .c).
 */
int queue_match(struct profcall *calls, size_t ncalls, struct queue_call *qc,
		size_t nqc);

/*
 * The window's calls of the packs' queue functions (profdata.queue, kept
 * as the host records were read), matched as above: the load's step once
 * the calls are indexed and their stacks known.
 */
int profdata_queue_match(struct profdata *p);

#endif
