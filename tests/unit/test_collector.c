// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/collector.h"
#include "host/probes.h"
#include "msprof/recfile.h"
#include "unit.h"

/* A --uprobe function too long for a name record is refused at the file. */
static void test_long_uprobe_name(void)
{
	char spec[1100] = "libc:", path[] = "/tmp/msprof-pp-XXXXXX", err[256];
	struct collector_sink out;
	struct collector *c = calloc(1, sizeof(*c));
	struct probe_set ps;
	int fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	memset(spec + 5, 'f', 1000);
	spec[1005] = '\0';
	CU_ASSERT_EQUAL_FATAL(probe_set_build(&ps, 0, spec, err, sizeof(err)), 0);
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	unlink(path);
	CU_ASSERT_EQUAL(collector_open(c, 42, fd, &ps), -ENAMETOOLONG);
	CU_ASSERT_EQUAL(c->nsinks, 0);
	probe_set_free(&ps);

	/* The longest name that fits, with raw registers' names. */
	spec[5 + MSPROF_REC_NAMES_MAX - 1 - 6 * 5] = '\0';
	CU_ASSERT_EQUAL_FATAL(probe_set_build(&ps, 0, spec, err, sizeof(err)), 0);
	strcpy(path, "/tmp/msprof-pp-XXXXXX");
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	unlink(path);
	CU_ASSERT_EQUAL(collector_open(c, 42, fd, &ps), 0);
	CU_ASSERT_EQUAL(collector_close(c, 42, &out), 0);
	probe_set_free(&ps);
	free(c);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "a --uprobe name too long for its record is refused", test_long_uprobe_name },
		CU_TEST_INFO_NULL,
	};

	return add_suite("collector", tests);
}

UNIT_SUITE(register_tests)
