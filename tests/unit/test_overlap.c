// SPDX-License-Identifier: MIT
/* The Overlap Analysis the timeline and the db share (export/overlap.c). */
#include <string.h>

#include "export/overlap.h"
#include "tasks_fixture.h"
#include "unit.h"

struct seen {
	uint64_t at[32][4];	/* device, kind, start, end */
	int n;
};

static int record(uint32_t device, enum overlap_kind kind, uint64_t start,
		  uint64_t end, void *ctx)
{
	struct seen *s = ctx;

	CU_ASSERT_FATAL(s->n < 32);
	s->at[s->n][0] = device;
	s->at[s->n][1] = kind;
	s->at[s->n][2] = start;
	s->at[s->n][3] = end;
	s->n++;
	return 0;
}

/*
 * Computing is the union of kernels; copies count in the device's span
 * (so as Free), as msprof counts only ops as computing.
 */
static void test_overlap(void)
{
	static const uint64_t want[][4] = {
		{ 0, OVERLAP_FREE, 100, 150 },		/* a copy first */
		{ 0, OVERLAP_COMPUTE, 150, 300 },	/* two kernels overlapping */
		{ 0, OVERLAP_FREE, 300, 400 },
		{ 0, OVERLAP_COMPUTE, 400, 500 },	/* one inside another */
		{ 0, OVERLAP_FREE, 500, 600 },		/* a copy last */
		{ 1, OVERLAP_COMPUTE, 10, 30 },		/* touching kernels merge */
	};
	struct profdata *p = unit_two_devices_tasks();
	struct seen s = { .n = 0 };
	int i;

	CU_ASSERT_EQUAL(overlap_each(p, record, &s), 0);
	CU_ASSERT_EQUAL(s.n, 6);
	for (i = 0; i < s.n && i < 6; i++)
		CU_ASSERT(!memcmp(s.at[i], want[i], sizeof(want[i])));
	CU_ASSERT_STRING_EQUAL(overlap_name(OVERLAP_COMM_NOT_OVERLAPPED),
			       "Communication(Not Overlapped)");
	CU_ASSERT_STRING_EQUAL(overlap_name(OVERLAP_FREE), "Free");
	unit_free_tasks(p);
}

/*
 * Collectives: Communication is their union; what of it no kernel hides
 * is Not Overlapped; Computing, Not Overlapped and Free tile the span.
 */
static void test_overlap_comm(void)
{
	static const uint64_t want[][4] = {
		{ 0, OVERLAP_COMPUTE, 100, 200 },
		{ 0, OVERLAP_COMMUNICATION, 150, 400 },	/* two collectives touching */
		{ 0, OVERLAP_COMM_NOT_OVERLAPPED, 200, 250 },
		{ 0, OVERLAP_COMPUTE, 250, 300 },	/* a kernel inside them */
		{ 0, OVERLAP_COMM_NOT_OVERLAPPED, 300, 400 },
		{ 0, OVERLAP_FREE, 400, 500 },
		{ 0, OVERLAP_COMPUTE, 500, 600 },
		{ 0, OVERLAP_FREE, 600, 700 },
		{ 0, OVERLAP_COMMUNICATION, 700, 800 },	/* after a gap */
		{ 0, OVERLAP_COMM_NOT_OVERLAPPED, 700, 800 },
		{ 0, OVERLAP_FREE, 800, 900 },		/* a copy last */
	};
	struct profdata *p = unit_no_tasks();
	struct seen s = { .n = 0 };
	uint64_t tiled = 0;
	int i;

	unit_add_task(p, 0, "matmul", 100, 200);
	unit_add_task(p, 0, "hcom_allReduce_", 150, 300);
	unit_add_task(p, 0, "relu", 250, 300);
	unit_add_task(p, 0, "hcom_allGather_", 300, 400);
	unit_add_task(p, 0, "matmul", 500, 600);
	unit_add_task(p, 0, "hcom_allReduce_", 700, 800);
	unit_add_task(p, 0, "MEMCPY_ASYNC", 750, 900);
	CU_ASSERT_EQUAL(overlap_each(p, record, &s), 0);
	CU_ASSERT_EQUAL(s.n, 11);
	for (i = 0; i < s.n && i < 11; i++) {
		CU_ASSERT(!memcmp(s.at[i], want[i], sizeof(want[i])));
		if (s.at[i][1] != OVERLAP_COMMUNICATION)
			tiled += s.at[i][3] - s.at[i][2];
	}
	CU_ASSERT_EQUAL(tiled, 900 - 100);
	unit_free_tasks(p);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "overlap: Computing is the union of ops, Free the rest", test_overlap },
		{ "overlap: communication, the part not hidden, the span tiled", test_overlap_comm },
		CU_TEST_INFO_NULL,
	};

	(void)skipped;
	return add_suite("overlap", tests);
}

UNIT_SUITE(register_tests)
