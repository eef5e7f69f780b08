// SPDX-License-Identifier: MIT
/* The PROF_ directory's name: what is made is what the stage's copy takes. */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "common/proflayout.h"
#include "unit.h"

static void test_name_format(void)
{
	unsigned char rnd[8];
	char name[64];
	regex_t re;
	int i;

	for (i = 0; i < 8; i++)
		rnd[i] = (unsigned char)(i * 37 + 250);
	CU_ASSERT_EQUAL(regcomp(&re, "^PROF_[0-9]{6}_[0-9]{17}_[0-9]{8}[A-R]{8}$", REG_EXTENDED), 0);
	CU_ASSERT_EQUAL(proflayout_name_make(name, sizeof(name), 7, 1700000000123456789ull, 4242, rnd), 0);
	CU_ASSERT_EQUAL(regexec(&re, name, 0, NULL, 0), 0);
	CU_ASSERT_EQUAL(strncmp(name, "PROF_000007_", 12), 0);
	CU_ASSERT_EQUAL(strncmp(name + 12 + 14, "123_00004242", 12), 0);
	/* The index wraps as msprof's does, never to 000000; a pid of 9 digits keeps 8. */
	CU_ASSERT_EQUAL(proflayout_name_make(name, sizeof(name), 999999, 0, 123456789, rnd), 0);
	CU_ASSERT_EQUAL(regexec(&re, name, 0, NULL, 0), 0);
	CU_ASSERT_EQUAL(strncmp(name, "PROF_999999_", 12), 0);
	CU_ASSERT_EQUAL(strncmp(name + 30, "23456789", 8), 0);
	CU_ASSERT_EQUAL(proflayout_name_make(name, sizeof(name), 1000000, 0, 1, rnd), 0);
	CU_ASSERT_EQUAL(strncmp(name, "PROF_000001_", 12), 0);
	regfree(&re);
	CU_ASSERT_EQUAL(proflayout_name_make(name, 20, 7, 0, 1, rnd), -ENAMETOOLONG);
}

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
		{ "PROF_ names follow msprof", test_name_format },
		{ "a PROF_ name: what is made passes the check, nothing else", test_name_ok },
		CU_TEST_INFO_NULL,
	};

	(void)skipped;
	return add_suite("proflayout", tests);
}

UNIT_SUITE(register_tests)
