// SPDX-License-Identifier: MIT
/* The agent's CANN dictionaries (agent/cann_dict.c) name every id they gave. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/cann_dict.h"
#include "agent/cann_slice.h"
#include "cann_fixture.h"
#include "unit.h"
#include "window_fixture.h"

static void test_dict_names_every_id(void)
{
	static const char *const strs[] = { "matmul", "a:b", "Memcpy", "x" };
	uint64_t ids[4];
	char dir[32], line[64], *text = malloc(1 << 20);
	size_t i;
	int fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	for (i = 0; i < 4; i++) {
		ids[i] = cann_dict_hash(strs[i], strlen(strs[i]));
		CU_ASSERT(ids[i] != 0);
	}
	CU_ASSERT_EQUAL(cann_dict_hash("matmul", 6), ids[0]);
	CU_ASSERT(ids[0] != ids[1] && ids[1] != ids[2] && ids[2] != ids[3]);
	/* A line break would make a second dictionary line. */
	CU_ASSERT_EQUAL(cann_dict_hash("a\nb", 3), 0);
	CU_ASSERT_EQUAL(cann_dict_hash("", 0), 0);
	CU_ASSERT_EQUAL(cann_dict_add_type(5000, 1001, "KernelLaunch"), 0);
	CU_ASSERT_EQUAL(cann_dict_add_type(5000, 1001, "Launch\n"), -EINVAL);
	unit_cann_dir(dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_EQUAL(cann_dict_write(fd, CANN_SLICE_BYTES), 0);
	close(fd);
	unit_read_file(dir, "unaging.additional.hash_dic.slice_0", text, 1 << 20);
	for (i = 0; i < 4; i++) {
		snprintf(line, sizeof(line), "\n%llu:%s\n",
			 (unsigned long long)ids[i], strs[i]);
		CU_ASSERT_PTR_NOT_NULL(strstr(text, line + 1));
	}
	unit_read_file(dir, "unaging.additional.type_info_dic.slice_0", text, 1 << 20);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n5000_1001:KernelLaunch\n"));
	/* The library's own names: the node level's launch among them. */
	CU_ASSERT(!strncmp(text, "10000_5:launch\n", 15));
	free(text);
	unit_remove_dir(dir);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo none[] = { CU_TEST_INFO_NULL };
	static const CU_TestInfo files[] = {
		{ "dictionaries name every id", test_dict_names_every_id },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("cann_dict", none, files, unit_no_openat2(),
				 skipped);
}

UNIT_SUITE(register_tests)
