// SPDX-License-Identifier: MIT
/*
 * The exporters' string interning (export/strtab.c): once a name, in order,
 * and names of one unkeyed hash no dearer than others.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/strtab.h"
#include "unit.h"

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

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "strings are interned once, in order", test_strtab },
		{ "names of one unkeyed hash cost no more than others", test_strtab_flood },
		CU_TEST_INFO_NULL,
	};

	return add_suite("strtab", tests);
}

UNIT_SUITE(register_tests)
