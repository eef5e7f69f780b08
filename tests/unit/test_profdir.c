// SPDX-License-Identifier: MIT
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profdir.h"
#include "unit.h"

static void test_name_format(void)
{
	unsigned char rnd[16];
	char name[64];
	regex_t re;
	int i;

	for (i = 0; i < 16; i++)
		rnd[i] = (unsigned char)(i * 37 + 250);
	CU_ASSERT_EQUAL(profdir_name(name, sizeof(name), 7, 1700000000123456789ull, rnd), 0);
	CU_ASSERT_EQUAL(regcomp(&re, "^PROF_000007_[0-9]{14}123_[A-R]{16}$", REG_EXTENDED), 0);
	CU_ASSERT_EQUAL(regexec(&re, name, 0, NULL, 0), 0);
	regfree(&re);
	CU_ASSERT_EQUAL(profdir_name(name, 20, 7, 0, rnd), -ENAMETOOLONG);
}

static void test_create_and_finish(void)
{
	char base[] = "/tmp/msprof-unit-XXXXXX", dir[4096], path[4200], text[2048];
	struct clock_pair start;
	struct profdir_summary sum = { .host_pid = 42, .ns_pid = 7, .comm = "a\"b",
				       .window = 1, .api_events = 5,
				       .device_status = "success" };
	struct stat st;
	FILE *fp;
	size_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(base));
	clock_pair_now(&start);
	CU_ASSERT_EQUAL_FATAL(profdir_create(base, 1, &start, dir, sizeof(dir)), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, PROFDIR_HOST_DATA);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/start_info", dir);
	CU_ASSERT_EQUAL(access(path, R_OK), 0);
	sum.start = start;
	clock_pair_now(&sum.end);
	CU_ASSERT_EQUAL(profdir_finish(dir, &sum), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, PROFDIR_INFO);
	fp = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	n = fread(text, 1, sizeof(text) - 1, fp);
	text[n] = '\0';
	fclose(fp);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"pid\": 42"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"comm\": \"a\\\"b\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"api_events\": 5"));
	snprintf(path, sizeof(path), "rm -rf '%s'", base);
	CU_ASSERT_EQUAL(system(path), 0);
}

int register_profdir_tests(void)
{
	static const CU_TestInfo tests[] = {
		{ "PROF_ names follow msprof", test_name_format },
		{ "create, then finish with info.json", test_create_and_finish },
		CU_TEST_INFO_NULL,
	};

	return add_suite("profdir", tests);
}
