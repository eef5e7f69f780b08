// SPDX-License-Identifier: MIT
/* The exporters' text appenders (export/outbuf.c). */
#include <stdlib.h>
#include <string.h>

#include "export/outbuf.h"
#include "unit.h"

/* What the appenders in fill() wrote, through a memory stream. */
static char *format(void (*fill)(struct outbuf *b))
{
	struct outbuf *b = malloc(sizeof(*b));
	char *text = NULL;
	size_t len;
	FILE *fp = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	ob_init(b, fp);
	fill(b);
	CU_ASSERT_EQUAL(ob_flush(b), 0);
	CU_ASSERT_EQUAL(fclose(fp), 0);
	free(b);
	return text;
}

static void numbers(struct outbuf *b)
{
	ob_us3(b, 0);
	ob_char(b, ' ');
	ob_us3(b, 1234567);
	ob_char(b, ' ');
	ob_us3(b, 5);
	ob_char(b, ' ');
	ob_us3(b, UINT64_MAX);
	ob_char(b, ' ');
	ob_i64(b, INT64_MIN);
	ob_char(b, ' ');
	ob_u64(b, 0);
	ob_char(b, ' ');
	ob_hex(b, 0xc0104e01);
}

static void test_numbers(void)
{
	char *t = format(numbers);

	CU_ASSERT_STRING_EQUAL(t, "0.000 1234.567 0.005 18446744073709551.615 "
			       "-9223372036854775808 0 c0104e01");
	free(t);
}

/* Every length and its edges, and a spread between: as printf writes them. */
static void test_u64_digits(void)
{
	char buf[24], want[24];
	uint64_t v, p = 1, seed = 0x9e3779b97f4a7c15ull;
	int i, d;

	for (d = 0; d < 20; d++, p *= 10)
		for (v = p > 2 ? p - 2 : 0; v <= p + 2; v++) {
			snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
			CU_ASSERT_EQUAL(fmt_u64(buf, v), strlen(want));
			CU_ASSERT_STRING_EQUAL(buf, want);
		}
	for (i = 0; i < 100000; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		v = seed >> (seed & 63);
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
		CU_ASSERT_EQUAL(fmt_u64(buf, v), strlen(want));
		CU_ASSERT_STRING_EQUAL(buf, want);
	}
	fmt_u64(buf, UINT64_MAX);
	CU_ASSERT_STRING_EQUAL(buf, "18446744073709551615");
}

static void strings(struct outbuf *b)
{
	ob_json_str(b, "a\"b\\c\n\x01\x7f");
}

static void test_json_str(void)
{
	char *t = format(strings);

	CU_ASSERT_STRING_EQUAL(t, "\"a\\\"b\\\\c\\u000a\\u0001\\u007f\"");
	free(t);
}

/* More than the buffer holds, in pieces of every size. */
static void bulk(struct outbuf *b)
{
	static char piece[OUTBUF_SIZE + 7];
	size_t i;

	memset(piece, 'x', sizeof(piece));
	for (i = 0; i < 3; i++)
		ob_strn(b, piece, sizeof(piece) - i);
	for (i = 0; i < OUTBUF_SIZE; i++)
		ob_json_str(b, "y");
}

static void test_bulk(void)
{
	char *t = format(bulk);
	size_t n = 3 * (OUTBUF_SIZE + 7) - 3;

	CU_ASSERT_EQUAL(strspn(t, "x"), n);
	CU_ASSERT_EQUAL(strlen(t + n), 3 * (size_t)OUTBUF_SIZE);
	free(t);
}

static void test_us(void)
{
	char buf[24];

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


static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "numbers are formatted as printf would", test_numbers },
		{ "integers of every length as printf writes them", test_u64_digits },
		{ "JSON strings are escaped", test_json_str },
		{ "text larger than the buffer arrives whole", test_bulk },
		{ "times are ns with a point inserted", test_us },
		CU_TEST_INFO_NULL,
	};

	return add_suite("outbuf", tests);
}

UNIT_SUITE(register_tests)
