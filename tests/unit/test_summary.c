// SPDX-License-Identifier: MIT
/* The summaries' cells: msprof's number formats, its rounding and variance, and rows of tasks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/naming.h"
#include "export/comm.h"
#include "export/overlap.h"
#include "export/profdata.h"
#include "export/summary.h"
#include "export/outbuf.h"
#include "export/summary_csv.h"
#include "unit.h"

static void test_us(void)
{
	char buf[CSV_NUM_MAX];

	CU_ASSERT_EQUAL(fmt_us3(buf, 0), 5);
	CU_ASSERT_STRING_EQUAL(buf, "0.000");
	fmt_us3(buf, 5);
	CU_ASSERT_STRING_EQUAL(buf, "0.005");
	fmt_us3(buf, 1234567);
	CU_ASSERT_STRING_EQUAL(buf, "1234.567");
	fmt_us3(buf, 1700000000123456789ull);
	CU_ASSERT_STRING_EQUAL(buf, "1700000000123456.789");
	fmt_us3(buf, UINT64_MAX);
	CU_ASSERT_STRING_EQUAL(buf, "18446744073709551.615");
}

static void test_milli(void)
{
	static const struct {
		uint64_t milli;
		const char *want;
	} cases[] = {
		{ 0, "0" }, { 1, "0.001" }, { 10, "0.01" }, { 100, "0.1" },
		{ 120, "0.12" }, { 1500, "1.5" }, { 2000, "2" }, { 2010, "2.01" },
		{ 123456, "123.456" }, { 100000, "100" },
	};
	char buf[CSV_NUM_MAX];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CU_ASSERT_EQUAL(csv_fmt_milli(buf, cases[i].milli), strlen(cases[i].want));
		CU_ASSERT_STRING_EQUAL(buf, cases[i].want);
	}
	/* Past 64 bits: a variance of 10¹⁸ µs² in thousandths. */
	csv_fmt_milli(buf, (u128)1000000000000000000ull * 1000);
	CU_ASSERT_STRING_EQUAL(buf, "1000000000000000000");
	/* Past 64 bits, the low 19 digits keep their zeros. */
	csv_fmt_milli(buf, (u128)UINT64_MAX + 1);
	CU_ASSERT_STRING_EQUAL(buf, "18446744073709551.616");
	csv_fmt_milli(buf, (u128)10000000000000000000ull * 5 + 7);
	CU_ASSERT_STRING_EQUAL(buf, "50000000000000000.007");
	csv_fmt_milli(buf, ~(u128)0);
	CU_ASSERT_STRING_EQUAL(buf, "340282366920938463463374607431768211.455");
}

static void test_rounding(void)
{
	/* Halves away from zero, as std::round. */
	CU_ASSERT(csv_div_round(5, 2) == 3);
	CU_ASSERT(csv_div_round(4, 3) == 1);
	CU_ASSERT(csv_div_round(5, 3) == 2);
	CU_ASSERT(csv_div_round(0, 7) == 0);
	CU_ASSERT(csv_div_round(2333, 1000) == 2);
	CU_ASSERT(csv_div_round(2500, 1000) == 3);
}

static void test_variance(void)
{
	char buf[CSV_NUM_MAX];

	/*
	 * 1, 2 and 4 µs: the mean rounds to 2.333, and
	 * ((1 - 2.333)² + (2 - 2.333)² + (4 - 2.333)²) / 3 = 1.5555557 -> 1.556.
	 */
	csv_fmt_milli(buf, csv_variance_milli(3, 7000, 1000000 + 4000000 + 16000000));
	CU_ASSERT_STRING_EQUAL(buf, "1.556");
	/* Population, not sample: 2 and 4 µs give 1, not 2. */
	csv_fmt_milli(buf, csv_variance_milli(2, 6000, 4000000 + 16000000));
	CU_ASSERT_STRING_EQUAL(buf, "1");
	CU_ASSERT(csv_variance_milli(1, 123456, (u128)123456 * 123456) == 0);
	CU_ASSERT(csv_variance_milli(0, 0, 0) == 0);
	/* 1000 s and 3000 s: squares past 64 bits, a variance of 10¹⁸ µs². */
	csv_fmt_milli(buf, csv_variance_milli(2, 4000000000000ull,
					      (u128)1000000000000ull * 1000000000000ull +
					      (u128)3000000000000ull * 3000000000000ull));
	CU_ASSERT_STRING_EQUAL(buf, "1000000000000000000");
}

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

static void text_cell(const char *s, const char *want)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	csv_text(fp, s);
	fclose(fp);
	CU_ASSERT_STRING_EQUAL(text, want);
	free(text);
}

static void test_text(void)
{
	text_cell("matmul", "matmul");
	text_cell("add<int, float>", "\"add<int, float>\"");
	text_cell("say \"hi\"", "\"say \"\"hi\"\"\"");
	text_cell("two\nlines", "\"two\nlines\"");
	/* What a spreadsheet would run is made text. */
	text_cell("=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0");
	text_cell("@SUM(1,2)", "\"'@SUM(1,2)\"");
	text_cell("", "");
}

/* A window of tasks in memory: (device, name, start, duration) each. */
struct fake_task {
	uint32_t device;
	const char *name;
	uint64_t start, dur;
};

static void fake_window(struct profdata *p, const struct fake_task *ft, size_t n)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	/* Epoch = the start's real time (whole µs) + monotonic ns. */
	p->meta.start.real_ns = 1000000000000000000ull;
	p->tasks = calloc(n, sizeof(*p->tasks));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->tasks);
	p->ntasks = n;
	for (i = 0; i < n; i++) {
		struct devtask *t = &p->tasks[i];

		size_t len = strlen(ft[i].name);

		CU_ASSERT_EQUAL(profdata_op_named(p, ft[i].name, len,
						  profdata_type_of_name(ft[i].name, len),
						  8, &t->op), 0);
		t->device = ft[i].device;
		t->stream = 1;
		t->task_id = (uint32_t)i;
		t->start_ns = ft[i].start;
		t->end_ns = ft[i].start + ft[i].dur;
	}
}

static void free_window(struct profdata *p)
{
	free(p->tasks);
	strtab_free(&p->names);
	free(p->ops);
	free(p->op_slots);
}

static const struct fake_task two_devices[] = {
	{ 0, "k1", 1000, 100 },
	{ 0, "k1", 1050, 300 },		/* overlaps: no wait */
	{ 0, "MEMCPY_ASYNC", 2290, 600 },	/* 940 ns after k1 ended */
	{ 1, "k2", 500, 1000 },
};

static void test_op_statistic(void)
{
	struct profdata p;
	char *text;

	fake_window(&p, two_devices, 4);
	text = written(summary_op_statistic, &p);
	/* By total, descending; Ratio of the device's own total. */
	CU_ASSERT_STRING_EQUAL(text,
		"Device_id,OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n"
		"1,k2,AI_CORE,1,1,1,1,1,100\n"
		"0,MEMCPY_ASYNC,MEMCPY_ASYNC,1,0.6,0.6,0.6,0.6,60\n"
		"0,k1,AI_CORE,2,0.4,0.1,0.2,0.3,40\n");
	free(text);
	free_window(&p);
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

	fake_window(&p, two_devices, 4);
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
	free_window(&p);
}

/* npusim's collectives are HCCL tasks: communication, not computing. */
static void test_collective_type(void)
{
	static const struct fake_task coll[] = {
		{ 0, "hcom_allReduce_", 1000, 500 },
		{ 0, "hcomish", 2000, 500 },	/* a kernel that only looks so */
	};
	struct profdata p;
	char *text;

	fake_window(&p, coll, 2);
	CU_ASSERT_STRING_EQUAL(naming_devtask_type(&p, &p.tasks[0]), "HCCL");
	CU_ASSERT_STRING_EQUAL(naming_devtask_type(&p, &p.tasks[1]), "AI_CORE");
	CU_ASSERT_FALSE(overlap_is_compute(&p, &p.tasks[0]));
	CU_ASSERT_TRUE(overlap_is_compute(&p, &p.tasks[1]));
	text = written(summary_op_statistic, &p);
	/* msprof counts collectives in communication_statistic only. */
	CU_ASSERT_PTR_NULL(strstr(text, "hcom_allReduce_"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n0,hcomish,AI_CORE,1,"));
	free(text);
	free_window(&p);
}

/* communication_statistic: the collectives alone, Ratio of their total. */
static void test_comm_statistic(void)
{
	static const struct fake_task coll[] = {
		{ 0, "hcom_allReduce_", 1000, 500 },
		{ 0, "k1", 1500, 5000 },
		{ 0, "hcom_allReduce_", 7000, 1500 },
		{ 0, "hcom_broadcast_", 9000, 3000 },
		{ 1, "hcom_allReduce_", 1000, 100 },
	};
	struct profdata p;
	char *text;

	fake_window(&p, coll, 5);
	CU_ASSERT_TRUE(summary_has_communication(&p));
	text = written(summary_communication_statistic, &p);
	CU_ASSERT_STRING_EQUAL(text,
		"Device_id,OP Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n"
		"0,hcom_broadcast_,1,3,3,3,3,60\n"
		"0,hcom_allReduce_,2,2,0.5,1,1.5,40\n"
		"1,hcom_allReduce_,1,0.1,0.1,0.1,0.1,100\n");
	free(text);
	free_window(&p);
	fake_window(&p, two_devices, 4);
	CU_ASSERT_FALSE(summary_has_communication(&p));
	free_window(&p);
}

/* msprof's op names: type, group's last 3 characters, place, iteration. */
static void test_comm_names(void)
{
	static const struct fake_task coll[] = {
		{ 0, "hcom_allReduce_", 1000, 500 },
	};
	struct comm_op op = { .task = 0, .group = 0, .seq = 7 };
	struct profdata p;
	char buf[64];

	fake_window(&p, coll, 1);
	comm_op_name(buf, sizeof(buf), &p, &op);
	CU_ASSERT_STRING_EQUAL(buf, "hcom_allReduce__oup_7_1");
	op.group = 2;
	comm_group_name(buf, sizeof(buf), &p, &op);
	CU_ASSERT_STRING_EQUAL(buf, "hccl_group_2");
	comm_op_name(buf, sizeof(buf), &p, &op);
	CU_ASSERT_STRING_EQUAL(buf, "hcom_allReduce__p_2_7_1");
	op.group = COMM_UNKNOWN;
	comm_op_name(buf, sizeof(buf), &p, &op);
	CU_ASSERT_STRING_EQUAL(buf, "hcom_allReduce__N/A_7_1");
	CU_ASSERT_STRING_EQUAL(comm_data_type_name(4), "FP32");
	CU_ASSERT_EQUAL(comm_data_type_size(11), 2);
	CU_ASSERT_STRING_EQUAL(comm_data_type_name(COMM_UNKNOWN), "N/A");
	free_window(&p);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "times are ns with a point inserted", test_us },
		{ "statistics lose their trailing zeros", test_milli },
		{ "halves round away from zero", test_rounding },
		{ "the variance is msprof's, exact past 64 bits", test_variance },
		{ "a name with a comma or quote stays one cell", test_text },
		{ "op_statistic: per device and type, by total", test_op_statistic },
		{ "op_summary and task_time: starts, waits, states", test_op_summary_rows },
		{ "a collective's task is HCCL, not computing", test_collective_type },
		{ "communication_statistic: collectives by type and total", test_comm_statistic },
		{ "collective op names as msprof's", test_comm_names },
		CU_TEST_INFO_NULL,
	};

	return add_suite("summary", tests);
}

UNIT_SUITE(register_tests)
