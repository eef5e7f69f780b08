// SPDX-License-Identifier: MIT
/* A rank id as RANK_ID or RANK spells it. */
#include "common/rankid.h"
#include "unit.h"

static void test_rank_parse(void)
{
	CU_ASSERT_EQUAL(rankid_parse("0"), 0);
	CU_ASSERT_EQUAL(rankid_parse("17"), 17);
	CU_ASSERT_EQUAL(rankid_parse("999999999"), 999999999);
	CU_ASSERT_EQUAL(rankid_parse("abc"), -1);
	CU_ASSERT_EQUAL(rankid_parse(""), -1);
	CU_ASSERT_EQUAL(rankid_parse("-3"), -1);
	CU_ASSERT_EQUAL(rankid_parse("3 "), -1);
	CU_ASSERT_EQUAL(rankid_parse("1234567890"), -1);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "rank ids: digits only", test_rank_parse },
		CU_TEST_INFO_NULL,
	};

	(void)skipped;
	return add_suite("rankid", tests);
}

UNIT_SUITE(register_tests)
