// SPDX-License-Identifier: MIT
/* Host data slices: whole chunks, a new slice before one would overflow. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/proflayout.h"
#include "common/textslice.h"
#include "unit.h"

static off_t size_of(int dir, const char *path)
{
	struct stat st;

	return fstatat(dir, path, &st, AT_SYMLINK_NOFOLLOW) ? -1 : st.st_size;
}

static void test_roll_over(void)
{
	char base[] = "/tmp/msprof-unit-XXXXXX", *chunk;
	size_t third = TEXTSLICE_MAX / 3 + 1;
	struct textslice ts;
	int dir, i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(base));
	dir = open(base, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(dir >= 0);
	CU_ASSERT_EQUAL_FATAL(mkdirat(dir, PROFDIR_HOST, 0750), 0);
	CU_ASSERT_EQUAL_FATAL(mkdirat(dir, PROFDIR_HOST_DATA, 0750), 0);
	chunk = malloc(TEXTSLICE_MAX + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(chunk);
	memset(chunk, 'x', TEXTSLICE_MAX + 1);

	CU_ASSERT_EQUAL(textslice_init(&ts, dir, "host_cpu.data"), 0);
	/* Nothing before the first chunk. */
	CU_ASSERT_EQUAL(textslice_close(&ts), 0);
	CU_ASSERT_EQUAL(size_of(dir, PROFDIR_HOST_DATA "/host_cpu.data.slice_0"), -1);
	/* Two thirds fit slice 0; the third chunk starts slice 1. */
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(textslice_write(&ts, chunk, third), 0);
	CU_ASSERT_EQUAL(textslice_write(&ts, chunk, TEXTSLICE_MAX + 1), -EMSGSIZE);
	CU_ASSERT_EQUAL(textslice_write(&ts, chunk, TEXTSLICE_MAX), 0);
	CU_ASSERT_EQUAL(textslice_close(&ts), 0);
	CU_ASSERT_EQUAL(size_of(dir, PROFDIR_HOST_DATA "/host_cpu.data.slice_0"),
			(off_t)(2 * third));
	CU_ASSERT_EQUAL(size_of(dir, PROFDIR_HOST_DATA "/host_cpu.data.slice_1"),
			(off_t)third);
	CU_ASSERT_EQUAL(size_of(dir, PROFDIR_HOST_DATA "/host_cpu.data.slice_2"),
			(off_t)TEXTSLICE_MAX);
	CU_ASSERT_EQUAL(ts.bytes, 3 * third + TEXTSLICE_MAX);

	/* A slice already there (planted) is never written into. */
	CU_ASSERT_EQUAL(textslice_init(&ts, dir, "host_cpu.data"), 0);
	CU_ASSERT_EQUAL(textslice_write(&ts, "y", 1), -EEXIST);
	CU_ASSERT_EQUAL(textslice_init(&ts, dir, "a-name-of-more-than-sixty-four-bytes-is-refused-by-textslice-init"),
			-ENAMETOOLONG);

	for (i = 0; i < 3; i++) {
		char path[128];

		snprintf(path, sizeof(path), PROFDIR_HOST_DATA "/host_cpu.data.slice_%d", i);
		unlinkat(dir, path, 0);
	}
	unlinkat(dir, PROFDIR_HOST_DATA, AT_REMOVEDIR);
	unlinkat(dir, PROFDIR_HOST, AT_REMOVEDIR);
	close(dir);
	CU_ASSERT_EQUAL(rmdir(base), 0);
	free(chunk);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo none[] = { CU_TEST_INFO_NULL };
	/* Slices are made beneath the PROF_ directory's fd: openat2(). */
	static const CU_TestInfo needy[] = {
		{ "whole chunks, a new slice past 2 MB", test_roll_over },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("textslice", none, needy, unit_no_openat2(),
				 skipped);
}

UNIT_SUITE(register_tests)
