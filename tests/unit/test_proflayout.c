// SPDX-License-Identifier: MIT
/* The PROF_ directory's name: what is made is what the stage's copy takes. */
#include <stdio.h>
#include <string.h>

#include "common/proflayout.h"
#include "unit.h"

static void test_name_ok(void)
{
	static const char *const bad[] = {
		"", "PROF_", "PROF_000001_20260101120000123_00012345ABCDEFG",
		"PROF_000001_20260101120000123_00012345ABCDEFGHI",
		"PROF_000001_20260101120000123_00012345ABCDEFGS",
		"PROF_00000a_20260101120000123_00012345ABCDEFGH",
		"PROF_000001-20260101120000123_00012345ABCDEFGH",
		"prof_000001_20260101120000123_00012345ABCDEFGH",
		"PROF_000001_2026010112000012x_00012345ABCDEFGH",
	};
	const unsigned char rnd[8] = { 0, 17, 18, 35, 255, 1, 2, 3 };
	char name[64];
	size_t i;

	CU_ASSERT(proflayout_name_ok("PROF_000001_20260101120000123_00012345ABCDEFGH"));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_ASSERT(!proflayout_name_ok(bad[i]));
	/* What the controller and the agent make, the copy takes. */
	CU_ASSERT_EQUAL_FATAL(proflayout_name_make(name, sizeof(name), 1,
						   1700000000123456789ull, 4242, rnd), 0);
	CU_ASSERT_EQUAL(strlen(name), PROFDIR_NAME_LEN);
	CU_ASSERT(proflayout_name_ok(name));
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "a PROF_ name: what is made passes the check, nothing else", test_name_ok },
		CU_TEST_INFO_NULL,
	};

	(void)skipped;
	return add_suite("proflayout", tests);
}

UNIT_SUITE(register_tests)
