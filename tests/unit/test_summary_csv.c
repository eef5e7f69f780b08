// SPDX-License-Identifier: MIT
/* The summaries' cells (export/summary_csv.c): msprof's number formats, its rounding and variance, text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/summary_csv.h"
#include "unit.h"

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

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "statistics lose their trailing zeros", test_milli },
		{ "halves round away from zero", test_rounding },
		{ "the variance is msprof's, exact past 64 bits", test_variance },
		{ "a name with a comma or quote stays one cell", test_text },
		CU_TEST_INFO_NULL,
	};

	return add_suite("summary_csv", tests);
}

UNIT_SUITE(register_tests)
