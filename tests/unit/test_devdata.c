// SPDX-License-Identifier: MIT
/* The PROF_ directory our agent names as a CANN runtime does (agent/devdata.c). */
#include <errno.h>
#include <regex.h>

#include "agent/devdata.h"
#include "unit.h"

static void test_run_name(void)
{
	char path[128];
	regex_t re;

	CU_ASSERT_EQUAL(devdata_run_dir_name("/r", path, sizeof(path)), 0);
	CU_ASSERT_EQUAL(regcomp(&re, "^/r/PROF_000001_20[0-9]{15}_[0-9]{8}[A-R]{8}$",
				REG_EXTENDED), 0);
	CU_ASSERT_EQUAL(regexec(&re, path, 0, NULL, 0), 0);
	regfree(&re);
	CU_ASSERT_EQUAL(devdata_run_dir_name("/r", path, 20), -ENAMETOOLONG);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "the agent's PROF_ dir is named as a runtime's", test_run_name },
		CU_TEST_INFO_NULL,
	};

	(void)skipped;
	return add_suite("devdata", tests);
}

UNIT_SUITE(register_tests)
