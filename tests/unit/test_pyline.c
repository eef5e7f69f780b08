// SPDX-License-Identifier: MIT
/*
 * The line decoders against CPython's own answers: every instruction of
 * one function, as 3.9 to 3.13 compiled it (pyline_cases.h), gets the line
 * the interpreter gave it; tables cut short or garbled stay in bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "export/pyline.h"
#include "pyline_cases.h"
#include "unit.h"

#define NR(a) (sizeof(a) / sizeof(a[0]))
/* Where 3.11+'s code starts in its code object, as the kernel counts. */
#define CODE_OFF 0xc8

struct pyline_case {
	unsigned int minor;
	const uint8_t *table;
	size_t len;
	int first;
	const int *lines;	/* one per 2-byte code unit */
	size_t n;
};

#define CASE(m, name, FIRST) \
	{ m, name##_table, NR(name##_table), FIRST, name##_lines, NR(name##_lines) }

static const struct pyline_case cases[] = {
	CASE(9, py39, PY39_FIRSTLINE),
	CASE(10, py310, PY310_FIRSTLINE),
	CASE(11, py311, PY311_FIRSTLINE),
	CASE(12, py312, PY312_FIRSTLINE),
	CASE(13, py313, PY313_FIRSTLINE),
};

/* The instruction as the kernel takes it for the unit at byte off. */
static int32_t instr_at(unsigned int minor, size_t off)
{
	if (minor <= 9)
		return (int32_t)off;		/* f_lasti, in bytes */
	if (minor == 10)
		return (int32_t)(off / 2);	/* f_lasti, in code units */
	return (int32_t)(CODE_OFF + off);	/* from the code object */
}

static void test_every_instruction(void)
{
	size_t c, i, bad;

	for (c = 0; c < NR(cases); c++) {
		const struct pyline_case *k = &cases[c];

		for (i = bad = 0; i < k->n; i++) {
			int got = pyline_of(k->minor, k->table, k->len, k->first,
					    CODE_OFF, instr_at(k->minor, 2 * i));

			if (got != k->lines[i] && bad++ < 3)
				printf("\n  3.%u offset %zu: line %d, CPython says %d",
				       k->minor, 2 * i, got, k->lines[i]);
		}
		CU_ASSERT_EQUAL(bad, 0);
	}
}

/* A frame not started yet is at its first line, every version. */
static void test_not_started(void)
{
	size_t c;

	for (c = 0; c < NR(cases); c++)
		CU_ASSERT_EQUAL(pyline_of(cases[c].minor, cases[c].table,
					  cases[c].len, cases[c].first, CODE_OFF, -1),
				cases[c].first);
	/* 3.11+: an instruction before the code is no offset into it. */
	CU_ASSERT_EQUAL(pyline_of(12, py312_table, NR(py312_table), 7, CODE_OFF,
				  CODE_OFF - 2), 7);
}

/*
 * A task's table can say anything: cut at every length, all ones or all
 * zeros, the decoders read only inside it and end.
 */
static void test_hostile_tables(void)
{
	static uint8_t ones[64], zeros[64];
	size_t c, len;

	memset(ones, 0xff, sizeof(ones));
	for (c = 0; c < NR(cases); c++)
		for (len = 0; len <= cases[c].len; len++)
			(void)pyline_of(cases[c].minor, cases[c].table, len,
					cases[c].first, CODE_OFF,
					instr_at(cases[c].minor, 2 * (cases[c].n - 1)));
	for (c = 9; c <= 13; c++) {
		(void)pyline_of((unsigned int)c, ones, sizeof(ones), 1, CODE_OFF,
				INT32_MAX);
		(void)pyline_of((unsigned int)c, zeros, sizeof(zeros), 1, CODE_OFF,
				INT32_MAX);
	}
	/* Past the table's end: no line, never a guess, from 3.10. */
	CU_ASSERT_EQUAL(pyline_of(11, py311_table, NR(py311_table), 2, CODE_OFF,
				  CODE_OFF + 2 * (int32_t)NR(py311_lines) + 64), 0);
	CU_ASSERT_EQUAL(pyline_of(10, py310_table, NR(py310_table), 2, CODE_OFF,
				  (int32_t)NR(py310_lines) + 32), 0);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "every instruction's line, as CPython 3.9-3.13 say", test_every_instruction },
		{ "a frame not started: its first line", test_not_started },
		{ "cut or garbled tables stay in bounds", test_hostile_tables },
		CU_TEST_INFO_NULL,
	};

	return add_suite("pyline", tests);
}

UNIT_SUITE(register_tests)
