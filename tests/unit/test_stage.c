// SPDX-License-Identifier: MIT
/* The staging directory: made new, the task's user's, removed with its files. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "task/stage.h"
#include "unit.h"

static void test_create_remove(void)
{
	char out[] = "/tmp/msprof-unit-XXXXXX", path[PATH_MAX];
	struct stage s;
	struct stat st;
	int dir, fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(out));
	dir = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CU_ASSERT_FATAL(dir >= 0);
	stage_init(&s);
	CU_ASSERT_EQUAL(stage_remove(&s), 0);
	/* This process stands for the task: it shares msprof's mounts. */
	CU_ASSERT_EQUAL_FATAL(stage_create(&s, (int)getpid(), false, out, dir), 0);
	CU_ASSERT(s.fd >= 0 && s.parent_fd >= 0);
	CU_ASSERT(!s.parent_refused);
	CU_ASSERT_EQUAL(strncmp(s.name, ".msprof_stage_", 14), 0);
	snprintf(path, sizeof(path), "%s/%s", out, s.name);
	CU_ASSERT_STRING_EQUAL(s.task_path, path);
	CU_ASSERT_EQUAL(fstatat(dir, s.name, &st, AT_SYMLINK_NOFOLLOW), 0);
	CU_ASSERT(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	CU_ASSERT_EQUAL(st.st_uid, s.uid);
	/* What the agent left there goes with it. */
	fd = openat(s.fd, "left", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	CU_ASSERT(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL(mkdirat(s.fd, "sub", 0700), 0);
	CU_ASSERT_EQUAL(stage_remove(&s), 0);
	CU_ASSERT(s.fd < 0 && s.parent_fd < 0);
	CU_ASSERT_EQUAL(fstatat(dir, path + strlen(out) + 1, &st, AT_SYMLINK_NOFOLLOW), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	close(dir);
	CU_ASSERT_EQUAL(rmdir(out), 0);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo none[] = { CU_TEST_INFO_NULL };
	/* The stage is opened with openat2(). */
	static const CU_TestInfo openat2_tests[] = {
		{ "made new in the output, removed with what is in it", test_create_remove },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("stage", none, openat2_tests,
				 unit_no_openat2(), skipped);
}

UNIT_SUITE(register_tests)
