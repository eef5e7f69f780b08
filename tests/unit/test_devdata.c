// SPDX-License-Identifier: MIT
/*
 * What the agent's backends share (agent/devdata.c): a PROF_ directory named
 * as a CANN runtime names one, a stats file per backend.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

/* Each backend its own stats file, so that two in one task never clash. */
static void test_stats_file(void)
{
	char dir[] = "/tmp/msprof-cupti-XXXXXX", path[64], buf[64] = "";
	FILE *fp;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	CU_ASSERT_EQUAL(devdata_stats_write(dir, "cupti", "\"tasks\":%d", 3), 0);
	snprintf(path, sizeof(path), "%s/agent_stats_cupti.json", dir);
	fp = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	CU_ASSERT_PTR_NOT_NULL(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	CU_ASSERT_STRING_EQUAL(buf, "{\"backend\":\"cupti\",\"tasks\":3}\n");
	CU_ASSERT_EQUAL(unlink(path), 0);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "the agent's PROF_ dir is named as a runtime's", test_run_name },
		{ "stats file per backend", test_stats_file },
		CU_TEST_INFO_NULL,
	};

	(void)skipped;
	return add_suite("devdata", tests);
}

UNIT_SUITE(register_tests)
