// SPDX-License-Identifier: MIT
/*
 * Opening a data file as the exporter does (common/safe_open.c): no FIFO
 * blocked on, no link followed, no directory read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recfile_fixture.h"
#include "unit.h"

static void test_not_a_file(void)
{
	char dir[] = "/tmp/msprof-rec-XXXXXX", path[64], link[64];
	struct unit_recs_seen s = { 0 };

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	alarm(10);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);
	CU_ASSERT_EQUAL(unit_read_path(path, NULL, unit_count_recs, &s), -EINVAL);
	unlink(path);
	/* A link, even to a good file, is not followed. */
	snprintf(path, sizeof(path), "%s/data", dir);
	unit_write_sample(path, 3);
	snprintf(link, sizeof(link), "%s/link", dir);
	CU_ASSERT_EQUAL_FATAL(symlink(path, link), 0);
	CU_ASSERT_EQUAL(unit_read_path(link, NULL, unit_count_recs, &s), -ELOOP);
	CU_ASSERT_EQUAL(unit_read_path(dir, NULL, unit_count_recs, &s), -EISDIR);
	CU_ASSERT_EQUAL(s.apis, 0);
	CU_ASSERT_EQUAL(unit_read_path(path, NULL, unit_count_recs, &s), 0);
	CU_ASSERT_EQUAL(s.apis, 3);
	alarm(0);
	unlink(link);
	unlink(path);
	rmdir(dir);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "FIFOs, links and directories are not read", test_not_a_file },
		CU_TEST_INFO_NULL,
	};

	return add_suite("safe_open", tests);
}

UNIT_SUITE(register_tests)
