// SPDX-License-Identifier: MIT
/* The exporters' text appenders and string interning. */
#include <stdlib.h>
#include <string.h>

#include "export/outbuf.h"
#include "export/strtab.h"
#include "common/printable.h"
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

static void test_strtab(void)
{
	struct strtab t = { 0 };
	char name[16];
	uint32_t id, i;

	CU_ASSERT_EQUAL(strtab_intern(&t, "matmul", 6, &id), 0);
	CU_ASSERT_EQUAL(id, 0);
	CU_ASSERT_EQUAL(strtab_intern(&t, "relu!", 4, &id), 0);
	CU_ASSERT_EQUAL(id, 1);
	CU_ASSERT_STRING_EQUAL(strtab_str(&t, 1), "relu");
	/* A prefix of a known name is a name of its own. */
	CU_ASSERT_EQUAL(strtab_intern(&t, "mat", 3, &id), 0);
	CU_ASSERT_EQUAL(id, 2);
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "k%u", i % 500);
		CU_ASSERT_EQUAL(strtab_intern(&t, name, strlen(name), &id), 0);
		CU_ASSERT_EQUAL(id, 3 + i % 500);
	}
	CU_ASSERT_EQUAL(strtab_intern(&t, "matmul", 6, &id), 0);
	CU_ASSERT_EQUAL(id, 0);
	CU_ASSERT_EQUAL(t.n, 503);
	strtab_free(&t);
}

/* FNV-1a, the unkeyed hash the table of names once had. */
static uint32_t fnv(uint32_t h, const char *s, size_t len)
{
	while (len--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

#define FLOOD_BITS 13		/* 8192 names of one FNV-1a hash */
#define PAIR_SLOTS (1u << 19)

static const char abc[] = "abcdefghijklmnopqrstuvwxyz"
			  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";

/* Three letters of abc from i's low 18 bits, then a fourth left open. */
static void block(uint32_t i, char out[4])
{
	int k;

	for (k = 0; k < 3; k++, i >>= 6)
		out[k] = abc[i & 63];
}

/*
 * Ends two blocks whose first three letters took FNV-1a to states x and y
 * that differ in the low byte only: letters whose XOR is that difference
 * make the states one.  0 if abc has no such two.
 */
static int end_pair(uint32_t x, uint32_t y, char a[4], char b[4])
{
	unsigned char d = (unsigned char)(x ^ y);
	const char *c;

	for (c = abc; *c; c++) {
		if (!strchr(abc, *c ^ d) || !(*c ^ d))
			continue;
		a[3] = *c;
		b[3] = (char)(*c ^ d);
		return 1;
	}
	return 0;
}

/*
 * Two blocks that take FNV-1a from state h to one state, by a birthday
 * search on the upper 24 bits of the state three letters in; a name of
 * FLOOD_BITS such choices then has one hash whichever block of each pair
 * it takes.  Returns the state after either.
 */
static uint32_t fnv_pair(uint32_t h, uint64_t *seen, char a[4], char b[4])
{
	uint32_t i, at, x, y;

	memset(seen, 0, PAIR_SLOTS * sizeof(*seen));
	for (i = 1; i < PAIR_SLOTS / 2; i++) {
		block(i, a);
		x = fnv(h, a, 3);
		for (at = (x >> 8) & (PAIR_SLOTS - 1); seen[at];
		     at = (at + 1) & (PAIR_SLOTS - 1)) {
			y = (uint32_t)(seen[at] >> 32);
			if (y >> 8 != x >> 8)
				continue;
			block((uint32_t)seen[at], b);
			if (end_pair(x, y, a, b))
				return fnv(h, a, 4);
		}
		seen[at] = (uint64_t)x << 32 | i;
	}
	return 0;
}

static void test_strtab_flood(void)
{
	static char pairs[FLOOD_BITS][2][4];
	char name[FLOOD_BITS * 4 + 1] = "";
	uint64_t *seen = malloc(PAIR_SLOTS * sizeof(*seen));
	uint32_t h = 2166136261u, first = 0, id, i, j;
	struct strtab t = { 0 };

	CU_ASSERT_PTR_NOT_NULL_FATAL(seen);
	for (i = 0; i < FLOOD_BITS && h; i++)
		h = fnv_pair(h, seen, pairs[i][0], pairs[i][1]);
	free(seen);
	CU_ASSERT_FATAL(h != 0);	/* every pair found */
	for (j = 0; j < 1u << FLOOD_BITS; j++) {
		for (i = 0; i < FLOOD_BITS; i++)
			memcpy(name + 4 * i, pairs[i][j >> i & 1], 4);
		if (!j)
			first = fnv(2166136261u, name, sizeof(name) - 1);
		CU_ASSERT_EQUAL(fnv(2166136261u, name, sizeof(name) - 1), first);
		CU_ASSERT_EQUAL(strtab_intern(&t, name, sizeof(name) - 1, &id), 0);
		CU_ASSERT_EQUAL(id, j);
	}
	CU_ASSERT_EQUAL(t.n, 1u << FLOOD_BITS);
	/*
	 * Random names look at about one occupied slot each; names of one
	 * unkeyed hash looked at n * n / 2 of them.
	 */
	CU_ASSERT(t.probes < 4ull << FLOOD_BITS);
	strtab_free(&t);
}

/* The published SipHash-2-4 vectors: key 00..0f, messages 00.. of 0 and 15 bytes. */
static void test_keyhash(void)
{
	struct keyhash_key key = { { 0x0706050403020100ull,
				     0x0f0e0d0c0b0a0908ull } };
	unsigned char msg[15];
	unsigned int i;

	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (unsigned char)i;
	CU_ASSERT_EQUAL(keyhash(&key, msg, 0), 0x726fdb47dd0e0e31ull);
	CU_ASSERT_EQUAL(keyhash(&key, msg, 15), 0xa129ca6149be45e5ull);
}

static void test_printable(void)
{
	char s[] = "PROF_\x1b]0;owned\a\x1b[2J\x7f ok \xc3\xa9";
	/*
	 * C1 controls: CSI as UTF-8, as a lone byte, after a lead byte that
	 * wants no more (c0), overlong (e0 82 9b), and a cut character; é,
	 * 🙂, U+00A0 and 中 stay.
	 */
	char c1[] = "a\xc2\x9b" "2J b\x9b" "2J \xc0\x9b" "c \xe0\x82\x9b"
		    "d \xed\xa0\x80 \xf4\x90\x80\x80 \xc3\xa9\xf0\x9f\x99\x82"
		    " \xc2\xa0 \xe4\xb8\xad \xe2\x82";
	/* An 8-bit terminal reads the 9b inside Û (c3 9b) as CSI. */
	char latin[] = "\xc3\x9b" "2J \xc3\xa9 ok";

	CU_ASSERT_PTR_EQUAL(printable_as(s, true), s);
	CU_ASSERT_STRING_EQUAL(s, "PROF_?]0;owned??[2J? ok \xc3\xa9");
	printable_as(c1, true);
	CU_ASSERT_STRING_EQUAL(c1, "a??2J b?2J ??c ???d ??? ???? "
			       "\xc3\xa9\xf0\x9f\x99\x82 \xc2\xa0 \xe4\xb8\xad ??");
	CU_ASSERT_STRING_EQUAL(printable_as(latin, false), "??2J ?? ok");
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "numbers are formatted as printf would", test_numbers },
		{ "integers of every length as printf writes them", test_u64_digits },
		{ "JSON strings are escaped", test_json_str },
		{ "text larger than the buffer arrives whole", test_bulk },
		{ "strings are interned once, in order", test_strtab },
		{ "names of one unkeyed hash cost no more than others", test_strtab_flood },
		{ "the keyed hash is SipHash-2-4", test_keyhash },
		{ "control bytes never reach a terminal", test_printable },
		CU_TEST_INFO_NULL,
	};

	return add_suite("outbuf", tests);
}

UNIT_SUITE(register_tests)
