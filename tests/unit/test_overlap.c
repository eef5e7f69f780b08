// SPDX-License-Identifier: MIT
/* The Overlap Analysis the timeline and the db share. */
#include <stdlib.h>
#include <string.h>

#include "export/overlap.h"
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

static void add_task(struct profdata *p, uint32_t dev, const char *name,
		     uint64_t start, uint64_t end)
{
	struct devtask *t = &p->tasks[p->ntasks++];

	memset(t, 0, sizeof(*t));
	t->device = dev;
	t->start_ns = start;
	t->end_ns = end;
	CU_ASSERT_EQUAL(strtab_intern(&p->names, name, strlen(name), &t->name), 0);
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
	struct profdata *p = calloc(1, sizeof(*p));
	struct seen s = { .n = 0 };
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->tasks = calloc(16, sizeof(*p->tasks));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->tasks);
	add_task(p, 0, "MEMCPY_ASYNC", 100, 150);
	add_task(p, 0, "matmul", 150, 250);
	add_task(p, 0, "relu", 200, 300);
	add_task(p, 0, "matmul", 400, 500);
	add_task(p, 0, "relu", 420, 450);
	add_task(p, 0, "MEMCPY_ASYNC", 450, 600);
	add_task(p, 1, "relu", 10, 20);
	add_task(p, 1, "relu", 20, 30);
	CU_ASSERT_EQUAL(overlap_each(p, record, &s), 0);
	CU_ASSERT_EQUAL(s.n, 6);
	for (i = 0; i < s.n && i < 6; i++)
		CU_ASSERT(!memcmp(s.at[i], want[i], sizeof(want[i])));
	CU_ASSERT_STRING_EQUAL(overlap_name(OVERLAP_COMM_NOT_OVERLAPPED),
			       "Communication(Not Overlapped)");
	CU_ASSERT_STRING_EQUAL(overlap_name(OVERLAP_FREE), "Free");
	strtab_free(&p->names);
	free(p->tasks);
	free(p);
}

int register_overlap_tests(void)
{
	static const CU_TestInfo tests[] = {
		{ "overlap: Computing is the union of ops, Free the rest", test_overlap },
		CU_TEST_INFO_NULL,
	};

	return add_suite("overlap analysis", tests);
}
