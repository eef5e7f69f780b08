// SPDX-License-Identifier: MIT
/* What is printed of names we did not choose (common/printable.c). */
#include <stdbool.h>

#include "common/printable.h"
#include "unit.h"

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
		{ "control bytes never reach a terminal", test_printable },
		CU_TEST_INFO_NULL,
	};

	return add_suite("printable", tests);
}

UNIT_SUITE(register_tests)
