// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl/agent_path.h"
#include "unit.h"

/* Makes dir/name (a file of mode), and returns its path in path. */
static void make_file(const char *dir, const char *name, mode_t mode,
		      char *path, size_t len)
{
	int fd;

	snprintf(path, len, "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(chmod(path, mode), 0);
}

/*
 * MSPROF_AGENT's path goes through the same checks as the installed one:
 * each refusal has its own error, so the message can name it.
 */
static void test_given_path_checked(void)
{
	char dir[] = "/tmp/msprof-unit-agent.XXXXXX";
	char ok[PATH_MAX], open_to_all[PATH_MAX], colon[PATH_MAX];
	char dollar[PATH_MAX];
	char sub[PATH_MAX + 8];
	struct agent_path ap;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	chmod(dir, 0755);
	make_file(dir, "libmsprof_agent.so", 0644, ok, sizeof(ok));
	make_file(dir, "open.so", 0666, open_to_all, sizeof(open_to_all));
	make_file(dir, "a:b.so", 0644, colon, sizeof(colon));
	/* ld.so would load $LIB/... expanded: a file never checked. */
	make_file(dir, "$LIB.so", 0644, dollar, sizeof(dollar));
	snprintf(sub, sizeof(sub), "%s/none.so", dir);

	CU_ASSERT_EQUAL(agent_path_find(ok, &ap), 0);
	CU_ASSERT_STRING_EQUAL(ap.path, ok);
	CU_ASSERT_EQUAL(agent_path_find(sub, &ap), -ENOENT);
	CU_ASSERT_STRING_EQUAL(ap.path, sub);
	CU_ASSERT_EQUAL(agent_path_find(dir, &ap), -ENOEXEC);
	CU_ASSERT_EQUAL(agent_path_find(open_to_all, &ap), -EPERM);
	CU_ASSERT_STRING_EQUAL(ap.refused, open_to_all);
	CU_ASSERT_EQUAL(agent_path_find(colon, &ap), -EINVAL);
	CU_ASSERT_EQUAL(agent_path_find(dollar, &ap), -EINVAL);
	/* A directory others can write makes the file in it untrustworthy. */
	chmod(dir, 0777);
	CU_ASSERT_EQUAL(agent_path_find(ok, &ap), -EPERM);
	CU_ASSERT_STRING_EQUAL(ap.refused, dir);
	/* A sticky one does not: others cannot rename what is in it. */
	chmod(dir, 01777);
	CU_ASSERT_EQUAL(agent_path_find(ok, &ap), 0);

	unlink(ok);
	unlink(open_to_all);
	unlink(colon);
	unlink(dollar);
	rmdir(dir);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "MSPROF_AGENT's path is checked like the installed one", test_given_path_checked },
		CU_TEST_INFO_NULL,
	};

	return add_suite("agent_path", tests);
}

UNIT_SUITE(register_tests)
