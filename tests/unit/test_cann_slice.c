// SPDX-License-Identifier: MIT
/* The agent's CANN slices (agent/cann_slice.c): whole records, a limit. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/cann_slice.h"
#include "cann_fixture.h"
#include "unit.h"
#include "window_fixture.h"

static void test_slices_whole(void)
{
	unsigned char rec[64 * 100], big[2000] = { 0 };
	struct cann_slice s;
	char dir[32];
	long long total;
	int fd;

	unit_cann_dir(dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(fd >= 0);
	memset(rec, 7, sizeof(rec));
	CU_ASSERT_EQUAL(cann_slice_init(&s, fd, "aging.compact.x", 1000), 0);
	CU_ASSERT_EQUAL(cann_slice_put(&s, rec, 64, 37), 0);
	CU_ASSERT_EQUAL(cann_slice_put(&s, rec, 64, 63), 0);
	CU_ASSERT_EQUAL(cann_slice_close(&s), 0);
	/* 15 records of 64 bytes fit in 1000. */
	CU_ASSERT_EQUAL(unit_check_slices(dir, "aging.compact.x", 64, 1000, &total), 7);
	CU_ASSERT_EQUAL(total, 6400);
	/* A record bigger than a slice gets one of its own, never cut. */
	CU_ASSERT_EQUAL(cann_slice_init(&s, fd, "big", 1000), 0);
	CU_ASSERT_EQUAL(cann_slice_put(&s, rec, 64, 1), 0);
	CU_ASSERT_EQUAL(cann_slice_put(&s, big, sizeof(big), 1), 0);
	CU_ASSERT_EQUAL(cann_slice_close(&s), 0);
	CU_ASSERT_EQUAL(unit_file_size(dir, "big.slice_0"), 64);
	CU_ASSERT_EQUAL(unit_file_size(dir, "big.slice_1"), 2000);
	CU_ASSERT_EQUAL(unit_file_size(dir, "big.slice_2"), -1);
	close(fd);
	unit_remove_dir(dir);
}

static void test_slice_limit_knob(void)
{
	setenv("MSPROF_TEST_SLICE_BYTES", "10", 1);
	CU_ASSERT_EQUAL(cann_slice_limit(), 256);
	setenv("MSPROF_TEST_SLICE_BYTES", "5000", 1);
	CU_ASSERT_EQUAL(cann_slice_limit(), 5000);
	/* A test knob lowers only. */
	setenv("MSPROF_TEST_SLICE_BYTES", "999999999", 1);
	CU_ASSERT_EQUAL(cann_slice_limit(), CANN_SLICE_BYTES);
	setenv("MSPROF_TEST_SLICE_BYTES", "1k", 1);
	CU_ASSERT_EQUAL(cann_slice_limit(), CANN_SLICE_BYTES);
	unsetenv("MSPROF_TEST_SLICE_BYTES");
	CU_ASSERT_EQUAL(cann_slice_limit(), CANN_SLICE_BYTES);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "slice limit test knob", test_slice_limit_knob },
		CU_TEST_INFO_NULL,
	};
	static const CU_TestInfo files[] = {
		{ "slices keep whole records", test_slices_whole },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("cann_slice", tests, files, unit_no_openat2(),
				 skipped);
}

UNIT_SUITE(register_tests)
