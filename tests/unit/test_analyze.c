// SPDX-License-Identifier: MIT
/* --analyze=on's files for a window of one collective. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/analyze.h"
#include "json_reader.h"
#include "unit.h"
#include "window_fixture.h"

/* What --analyze=on wrote as name, NUL-ended; NULL if unreadable. */
static char *analyzed(const char *dir, const char *name)
{
	char path[160], *text = NULL;
	size_t len = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/analyze/%s", dir, name);
	fp = fopen(path, "re");
	if (!fp)
		return NULL;
	if (getdelim(&text, &len, '\0', fp) < 0) {
		free(text);
		text = NULL;
	}
	fclose(fp);
	return text;
}

/*
 * The op's type is its task's name, which the task's user writes: quotes
 * and backslashes in it are escaped, not taken as the files' own JSON.
 */
static void test_comm_analyze_escapes(void)
{
	static const char *const files[] = {
		"communication.json", "communication_matrix.json",
	};
	char dir[] = "/tmp/msprof-tl-XXXXXX";
	const char *p;
	size_t i;
	char *text;

	unit_comm_window(dir, "hcom_\"},\\\n");
	CU_ASSERT_EQUAL(analyze_run(dir), 0);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		text = analyzed(dir, files[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(text);
		p = text;
		if (!unit_json_value(&p, 0) || (unit_json_ws(&p), *p)) {
			printf("\n  not JSON:\n%s", text);
			CU_FAIL("an analysis file is not one JSON value");
		}
		CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"hcom_\\\"},\\\\\\u000a_oup_0_1@hccl_world_group\""));
		free(text);
	}
	unit_remove_dir(dir);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo none[] = { CU_TEST_INFO_NULL };
	/* A window's files are read with openat2(). */
	static const CU_TestInfo tests[] = {
		{ "--analyze=on escapes an op's name in its JSON", test_comm_analyze_escapes },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("analyze", none, tests, unit_no_openat2(), skipped);
}

UNIT_SUITE(register_tests)
