// SPDX-License-Identifier: MIT
/* The controller lock: whose flock /proc/locks says holds the lock file. */
#include <errno.h>
#include <sys/sysmacros.h>

#include "task/ctl_lock.h"
#include "unit.h"

static void test_flock_line(void)
{
	dev_t dev = makedev(0, 0x1a);
	int pid = 0;

	CU_ASSERT_EQUAL(ctl_lock_parse_flock("1: FLOCK  ADVISORY  WRITE 4242 00:1a:1234 0 EOF\n",
					     dev, 1234, &pid), 0);
	CU_ASSERT_EQUAL(pid, 4242);
	pid = 0;
	/* A waiter holds nothing; other kinds, files and garbage are not it. */
	CU_ASSERT_EQUAL(ctl_lock_parse_flock("1: -> FLOCK  ADVISORY  WRITE 4243 00:1a:1234 0 EOF\n",
					     dev, 1234, &pid), -ENOENT);
	CU_ASSERT_EQUAL(ctl_lock_parse_flock("2: POSIX  ADVISORY  WRITE 4242 00:1a:1234 0 EOF\n",
					     dev, 1234, &pid), -ENOENT);
	CU_ASSERT_EQUAL(ctl_lock_parse_flock("3: FLOCK  ADVISORY  WRITE 4242 00:1a:12345 0 EOF\n",
					     dev, 1234, &pid), -ENOENT);
	CU_ASSERT_EQUAL(ctl_lock_parse_flock("4: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF\n",
					     dev, 1234, &pid), -ENOENT);
	CU_ASSERT_EQUAL(ctl_lock_parse_flock("FLOCK 4242 00:1a:1234\n", dev, 1234, &pid),
			-ENOENT);
	CU_ASSERT_EQUAL(ctl_lock_parse_flock("", dev, 1234, &pid), -ENOENT);
	CU_ASSERT_EQUAL(pid, 0);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "/proc/locks: a held flock on the lock file only", test_flock_line },
		CU_TEST_INFO_NULL,
	};

	(void)skipped;
	return add_suite("ctl_lock", tests);
}

UNIT_SUITE(register_tests)
