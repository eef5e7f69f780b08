// SPDX-License-Identifier: MIT
/* The summaries' rows of tasks (export/summary_ops.c), on an in-memory window. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/naming.h"
#include "export/overlap.h"
#include "export/summary.h"
#include "tasks_fixture.h"
#include "unit.h"

/* What fn wrote for p, in a string to free. */
static char *written(int (*fn)(FILE *, const struct profdata *),
		     const struct profdata *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	CU_ASSERT_EQUAL(fn(fp, p), 0);
	fclose(fp);
	return text;
}

static const struct unit_fake_task two_devices[] = {
	{ 0, "k1", 1000, 100 },
	{ 0, "k1", 1050, 300 },		/* overlaps: no wait */
	{ 0, "MEMCPY_ASYNC", 2290, 600 },	/* 940 ns after k1 ended */
	{ 1, "k2", 500, 1000 },
};

static void test_op_statistic(void)
{
	struct profdata p;
	char *text;

	unit_fake_window(&p, two_devices, 4);
	text = written(summary_op_statistic, &p);
	/* By total, descending; Ratio of the device's own total. */
	CU_ASSERT_STRING_EQUAL(text,
		"Device_id,OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n"
		"1,k2,AI_CORE,1,1,1,1,1,100\n"
		"0,MEMCPY_ASYNC,MEMCPY_ASYNC,1,0.6,0.6,0.6,0.6,60\n"
		"0,k1,AI_CORE,2,0.4,0.1,0.2,0.3,40\n");
	free(text);
	unit_free_window(&p);
}

/* The n-th cell (from 0) of line (from 0, the header) of text is want. */
static void want_cell(const char *text, int line, int n, const char *want)
{
	const char *at = text, *end;

	while (line-- && at)
		at = strchr(at, '\n') ? strchr(at, '\n') + 1 : NULL;
	while (n-- && at)
		at = strchr(at, ',') ? strchr(at, ',') + 1 : NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	end = at + strcspn(at, ",\n");
	CU_ASSERT_EQUAL(end - at, (long)strlen(want));
	CU_ASSERT_NSTRING_EQUAL(at, want, strlen(want));
}

static void test_op_summary_rows(void)
{
	struct profdata p;
	char *text;

	unit_fake_window(&p, two_devices, 4);
	text = written(summary_op_summary, &p);
	want_cell(text, 1, 8, "1000000000000001.000\t");
	want_cell(text, 1, 10, "0");
	want_cell(text, 2, 10, "0.000000");	/* overlapping: no wait */
	want_cell(text, 3, 10, "0.940000");
	want_cell(text, 3, 6, "N/A");		/* a copy has no op state */
	want_cell(text, 2, 6, "static");
	want_cell(text, 4, 10, "0");		/* a device's first task */
	want_cell(text, 4, 11, "8");
	free(text);
	text = written(summary_task_time, &p);
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
		"\n0,MEMCPY_ASYNC,MEMCPY_ASYNC,1,2,0.600,1000000000000002.290\t,1000000000000002.890\t\n"));
	free(text);
	unit_free_window(&p);
}

/* npusim's collectives are HCCL tasks: communication, not computing. */
static void test_collective_type(void)
{
	static const struct unit_fake_task coll[] = {
		{ 0, "hcom_allReduce_", 1000, 500 },
		{ 0, "hcomish", 2000, 500 },	/* a kernel that only looks so */
	};
	struct profdata p;
	char *text;

	unit_fake_window(&p, coll, 2);
	CU_ASSERT_STRING_EQUAL(naming_devtask_type(&p, &p.tasks[0]), "HCCL");
	CU_ASSERT_STRING_EQUAL(naming_devtask_type(&p, &p.tasks[1]), "AI_CORE");
	CU_ASSERT_FALSE(overlap_is_compute(&p, &p.tasks[0]));
	CU_ASSERT_TRUE(overlap_is_compute(&p, &p.tasks[1]));
	text = written(summary_op_statistic, &p);
	/* msprof counts collectives in communication_statistic only. */
	CU_ASSERT_PTR_NULL(strstr(text, "hcom_allReduce_"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n0,hcomish,AI_CORE,1,"));
	free(text);
	unit_free_window(&p);
}

/* communication_statistic: the collectives alone, Ratio of their total. */
static void test_comm_statistic(void)
{
	static const struct unit_fake_task coll[] = {
		{ 0, "hcom_allReduce_", 1000, 500 },
		{ 0, "k1", 1500, 5000 },
		{ 0, "hcom_allReduce_", 7000, 1500 },
		{ 0, "hcom_broadcast_", 9000, 3000 },
		{ 1, "hcom_allReduce_", 1000, 100 },
	};
	struct profdata p;
	char *text;

	unit_fake_window(&p, coll, 5);
	CU_ASSERT_TRUE(summary_has_communication(&p));
	text = written(summary_communication_statistic, &p);
	CU_ASSERT_STRING_EQUAL(text,
		"Device_id,OP Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n"
		"0,hcom_broadcast_,1,3,3,3,3,60\n"
		"0,hcom_allReduce_,2,2,0.5,1,1.5,40\n"
		"1,hcom_allReduce_,1,0.1,0.1,0.1,0.1,100\n");
	free(text);
	unit_free_window(&p);
	unit_fake_window(&p, two_devices, 4);
	CU_ASSERT_FALSE(summary_has_communication(&p));
	unit_free_window(&p);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "op_statistic: per device and type, by total", test_op_statistic },
		{ "op_summary and task_time: starts, waits, states", test_op_summary_rows },
		{ "a collective's task is HCCL, not computing", test_collective_type },
		{ "communication_statistic: collectives by type and total", test_comm_statistic },
		CU_TEST_INFO_NULL,
	};

	return add_suite("summary_ops", tests);
}

UNIT_SUITE(register_tests)
