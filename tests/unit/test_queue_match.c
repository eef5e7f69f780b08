// SPDX-License-Identifier: MIT
/*
 * Task queues' pairing (queue_match.h) on calls built in memory, sorted as
 * profdata keeps them: the caller's thread enqueues, a worker dequeues,
 * and the calls nested in a dequeue take its enqueue's connection id and
 * stack.
 */
#include <errno.h>
#include <string.h>

#include "export/queue_match.h"
#include "msprof/probe_packs.h"
#include "unit.h"

#define PY	10	/* the caller's thread */
#define WK	20	/* the queue's worker */

#define CALL(tid, s, e, d, st) \
	{ .ns_tid = tid, .start_ns = s, .end_ns = e, .depth = d, .stack = st }
#define ENQ(i, k, kind) { .key = k, .call = i, .role = MSPROF_ROLE_ENQUEUE, \
			  .key_kind = MSPROF_QUEUE_KEY_##kind }
#define DEQ(i, k, kind) { .key = k, .call = i, .role = MSPROF_ROLE_DEQUEUE, \
			  .key_kind = MSPROF_QUEUE_KEY_##kind }
#define N(a) (sizeof(a) / sizeof(a[0]))

/* Items keyed by themselves: each dequeue takes its key's latest enqueue. */
static void test_items(void)
{
	struct profcall calls[] = {
		CALL(PY, 100, 110, 0, 7),	/* 0: enqueue seq 1 */
		CALL(PY, 200, 210, 0, 8),	/* 1: enqueue seq 2 */
		CALL(PY, 300, 310, 0, 0),	/* 2: enqueue seq 3, no stack */
		CALL(PY, 400, 410, 0, 9),	/* 3: enqueue seq 1 again */
		CALL(WK, 50, 90, 0, 0),		/* 4: run seq 42, queued before the window */
		CALL(WK, 60, 70, 1, 0),		/* 5:   its launch */
		CALL(WK, 150, 190, 0, 0),	/* 6: run seq 1 */
		CALL(WK, 160, 170, 1, 0),	/* 7:   its launch */
		CALL(WK, 165, 168, 2, 0),	/* 8:     a call inside that */
		CALL(WK, 195, 199, 0, 0),	/* 9: a launch of no item */
		CALL(WK, 320, 390, 0, 0),	/* 10: run seq 3 */
		CALL(WK, 330, 340, 1, 5),	/* 11:   its launch, with a stack of its own */
		CALL(WK, 420, 450, 0, 0),	/* 12: run seq 1, the second */
		CALL(WK, 430, 440, 1, 0),	/* 13:   its launch */
	};
	struct queue_call qc[] = {
		DEQ(12, 1, ITEM), ENQ(3, 1, ITEM), DEQ(6, 1, ITEM), ENQ(0, 1, ITEM),
		ENQ(1, 2, ITEM), ENQ(2, 3, ITEM), DEQ(10, 3, ITEM), DEQ(4, 42, ITEM),
	};
	static const struct { uint32_t enqueue, stack; } want[N(calls)] = {
		[0] = { 0, 7 }, [1] = { 0, 8 }, [2] = { 0, 0 }, [3] = { 0, 9 },
		[4] = { 0, 0 }, [5] = { 0, 0 },
		[6] = { 1, 7 }, [7] = { 1, 7 }, [8] = { 1, 7 }, [9] = { 0, 0 },
		/* An enqueue with no stack leaves a call's own. */
		[10] = { 3, 0 }, [11] = { 3, 5 },
		[12] = { 4, 9 }, [13] = { 4, 9 },
	};
	size_t i;

	CU_ASSERT_EQUAL_FATAL(queue_match(calls, N(calls), qc, N(qc)), 0);
	for (i = 0; i < N(calls); i++) {
		if (calls[i].enqueue == want[i].enqueue && calls[i].stack == want[i].stack)
			continue;
		printf("\n  call %zu: enqueue %u stack %u, want %u %u", i,
		       calls[i].enqueue, calls[i].stack, want[i].enqueue, want[i].stack);
		CU_FAIL("a call given the wrong enqueue");
	}
}

/*
 * A queue keyed by itself, whose window began inside a dequeue waiting on
 * the empty queue: that dequeue (unseen) took the first enqueue, so the
 * first seen dequeue runs the second.
 */
static void test_fifo_begun_idle(void)
{
	struct profcall calls[] = {
		CALL(PY, 100, 105, 0, 1),	/* 0 */
		CALL(PY, 200, 205, 0, 2),	/* 1 */
		CALL(PY, 300, 305, 0, 3),	/* 2 */
		CALL(WK, 101, 104, 0, 0),	/* 3: a launch of the unseen dequeue */
		CALL(WK, 120, 215, 0, 0),	/* 4: waits, then runs the second */
		CALL(WK, 210, 212, 1, 0),	/* 5 */
		CALL(WK, 220, 312, 0, 0),	/* 6 */
		CALL(WK, 310, 311, 1, 0),	/* 7 */
	};
	struct queue_call qc[] = {
		ENQ(0, 0xa, FIFO), ENQ(1, 0xa, FIFO), ENQ(2, 0xa, FIFO),
		DEQ(4, 0xa, FIFO), DEQ(6, 0xa, FIFO),
	};

	CU_ASSERT_EQUAL_FATAL(queue_match(calls, N(calls), qc, N(qc)), 0);
	CU_ASSERT_EQUAL(calls[3].enqueue, 0);
	CU_ASSERT_EQUAL(calls[4].enqueue, 2);
	CU_ASSERT_EQUAL(calls[5].stack, 2);
	CU_ASSERT_EQUAL(calls[6].enqueue, 3);
	CU_ASSERT_EQUAL(calls[7].stack, 3);
}

/*
 * A window begun with two items queued: the first two dequeues seen run
 * them, and the queue running dry after the last enqueue says so.  A
 * second queue (another key) is paired on its own.
 */
static void test_fifo_in_flight(void)
{
	struct profcall calls[] = {
		CALL(PY, 100, 101, 0, 1),	/* 0: queue a */
		CALL(PY, 110, 111, 0, 2),	/* 1: queue a */
		CALL(PY, 115, 116, 0, 6),	/* 2: queue b */
		CALL(PY, 120, 121, 0, 3),	/* 3: queue a */
		CALL(WK, 102, 106, 0, 0),	/* 4: queue a's, queued before */
		CALL(WK, 107, 131, 0, 0),	/* 5: queued before */
		CALL(WK, 132, 141, 0, 0),	/* 6: enqueue 0 */
		CALL(WK, 140, 141, 1, 0),	/* 7 */
		CALL(WK, 142, 151, 0, 0),	/* 8: enqueue 1 */
		CALL(WK, 152, 161, 0, 0),	/* 9: enqueue 3 */
		CALL(WK + 1, 117, 119, 0, 0),	/* 10: queue b's */
	};
	struct queue_call qc[] = {
		ENQ(0, 0xa, FIFO), ENQ(1, 0xa, FIFO), ENQ(3, 0xa, FIFO),
		DEQ(4, 0xa, FIFO), DEQ(5, 0xa, FIFO), DEQ(6, 0xa, FIFO),
		DEQ(8, 0xa, FIFO), DEQ(9, 0xa, FIFO),
		ENQ(2, 0xb, FIFO), DEQ(10, 0xb, FIFO),
	};

	CU_ASSERT_EQUAL_FATAL(queue_match(calls, N(calls), qc, N(qc)), 0);
	CU_ASSERT_EQUAL(calls[4].enqueue, 0);
	CU_ASSERT_EQUAL(calls[5].enqueue, 0);
	CU_ASSERT_EQUAL(calls[6].enqueue, 1);
	CU_ASSERT_EQUAL(calls[7].stack, 1);
	CU_ASSERT_EQUAL(calls[8].enqueue, 2);
	CU_ASSERT_EQUAL(calls[9].enqueue, 4);
	CU_ASSERT_EQUAL(calls[9].stack, 3);
	CU_ASSERT_EQUAL(calls[10].enqueue, 3);
	CU_ASSERT_EQUAL(calls[10].stack, 6);
}

/* Nothing to pair is fine; a call of neither role is the caller's mistake. */
static void test_edges(void)
{
	struct profcall calls[] = { CALL(PY, 1, 2, 0, 0) };
	struct queue_call qc[] = { { .key = 1, .call = 0, .role = MSPROF_ROLE_NONE } };
	struct queue_call deq[] = { DEQ(0, 1, ITEM) };

	CU_ASSERT_EQUAL(queue_match(calls, N(calls), NULL, 0), 0);
	CU_ASSERT_EQUAL(queue_match(calls, N(calls), qc, N(qc)), -EINVAL);
	/* A dequeue whose enqueue the window missed keeps nothing. */
	CU_ASSERT_EQUAL(queue_match(calls, N(calls), deq, N(deq)), 0);
	CU_ASSERT_EQUAL(calls[0].enqueue, 0);
}

/* The packs' queue functions are found by name and layer, and only they. */
static void test_queue_funcs(void)
{
	const struct msprof_probe_func *f;

	f = msprof_probe_queue_func("npusimQueueRun", MSPROF_LAYER_ACL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(f->role, MSPROF_ROLE_DEQUEUE);
	CU_ASSERT_EQUAL(f->key_kind, MSPROF_QUEUE_KEY_ITEM);
	CU_ASSERT_STRING_EQUAL(f->args[f->key].name, "seq");
	f = msprof_probe_queue_func("_ZN7c10_npu10Repository7EnqueueEPv", MSPROF_LAYER_ACL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(f->role, MSPROF_ROLE_ENQUEUE);
	CU_ASSERT_EQUAL(f->key_kind, MSPROF_QUEUE_KEY_FIFO);
	CU_ASSERT_PTR_NULL(msprof_probe_queue_func("aclrtLaunchKernel", MSPROF_LAYER_ACL));
	/* --uprobe's of the same name is no queue's. */
	CU_ASSERT_PTR_NULL(msprof_probe_queue_func("npusimQueueRun", MSPROF_LAYER_CUSTOM));
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "items paired by their own key", test_items },
		{ "a queue's items in order, from a window begun idle", test_fifo_begun_idle },
		{ "a queue's items in order, with items queued before", test_fifo_in_flight },
		{ "nothing to pair, a call of no role", test_edges },
		{ "the packs' queue functions by name and layer", test_queue_funcs },
		CU_TEST_INFO_NULL,
	};

	(void)skipped;
	return add_suite("queue_match", tests);
}

UNIT_SUITE(register_tests)
