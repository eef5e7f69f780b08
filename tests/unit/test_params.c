// SPDX-License-Identifier: MIT
/* The parameters a CANN runtime reads (task/params.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msprof/protocol.h"
#include "task/params.h"
#include "unit.h"

static const struct params_switches sw = {
	.acl = true, .task_time = false, .hccl = true, .prof_level = "off",
	.msprof_pid = 77,
};

static void expect_key(const char *json, const char *key, const char *val)
{
	char out[256];

	CU_ASSERT_EQUAL(msprof_json_get_str(json, key, out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL(out, val);
}

static void test_payload(void)
{
	char json[MSPROF_PARAMS_LEN], big[5000];

	CU_ASSERT_EQUAL_FATAL(params_build(&sw, "/o/.s", "all", json, sizeof(json)), 0);
	/* One compact line: no newline, no blank after a separator. */
	CU_ASSERT_PTR_NULL(strchr(json, '\n'));
	CU_ASSERT_PTR_NULL(strstr(json, ": "));
	CU_ASSERT_PTR_NULL(strstr(json, ", "));
	expect_key(json, "result_dir", "/o/.s");
	expect_key(json, "devices", "all");
	expect_key(json, "acl", "on");
	expect_key(json, "runtimeApi", "off");
	expect_key(json, "taskTime", "off");
	expect_key(json, "hcclTrace", "on");
	expect_key(json, "ai_core_profiling_mode", "task-based");
	expect_key(json, "prof_level", "off");
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"msprofBinPid\":77,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"isCancel\":false"));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"hostProfiling\":false"));
	CU_ASSERT_EQUAL(json[0], '{');
	CU_ASSERT_EQUAL(json[strlen(json) - 1], '}');
	/* What a runtime's parser would cut or misread is refused. */
	CU_ASSERT_EQUAL(params_build(&sw, "/o/a\"b", "all", json, sizeof(json)), -EINVAL);
	CU_ASSERT_EQUAL(params_build(&sw, "/o/a\\b", "all", json, sizeof(json)), -EINVAL);
	CU_ASSERT_EQUAL(params_build(&sw, "/o/a\nb", "all", json, sizeof(json)), -EINVAL);
	memset(big, 'a', sizeof(big) - 1);
	big[0] = '/';
	big[sizeof(big) - 1] = '\0';
	CU_ASSERT_EQUAL(params_build(&sw, big, "all", json, sizeof(json)), -E2BIG);
	/* 4095 bytes at most, even where the buffer is larger. */
	big[3800] = '\0';
	CU_ASSERT_EQUAL(params_build(&sw, big, "all", big + 4000, 1000), -E2BIG);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "the payload a runtime reads", test_payload },
		CU_TEST_INFO_NULL,
	};
	(void)skipped;
	return add_suite("params", tests);
}

UNIT_SUITE(register_tests)
