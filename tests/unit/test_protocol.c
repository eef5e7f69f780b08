// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "msprof/protocol.h"
#include "unit.h"

/* The byte layout a real CANN task's profiling library expects. */
static void test_layout(void)
{
	struct msprof_params_msg p;
	struct msprof_msg m = { .type = MSPROF_STOP_REQ, .status = MSPROF_NOT_START };
	unsigned char bytes[8];

	CU_ASSERT_EQUAL(sizeof(p), 4100);
	CU_ASSERT_EQUAL(offsetof(struct msprof_params_msg, data), 4);
	CU_ASSERT_EQUAL(sizeof(m), 8);
	memcpy(bytes, &m, sizeof(m));
	CU_ASSERT_EQUAL(bytes[0], 3);
	CU_ASSERT_EQUAL(bytes[4], 4);
	CU_ASSERT_EQUAL(MSPROF_PARAMS_RSP, 0);
	CU_ASSERT_EQUAL(MSPROF_START_REQ + 1, MSPROF_START_RSP);
	CU_ASSERT_EQUAL(MSPROF_QUIT_RSP, 6);
	CU_ASSERT_EQUAL(MSPROF_DISCONNECT_RSP, 7);
	CU_ASSERT_EQUAL(MSPROF_ALREADY_START, 2);
	CU_ASSERT_EQUAL(MSPROF_NOT_SET_DEVICE, 3);
}

static void test_params_pack(void)
{
	static char big[5000];
	struct msprof_params_msg p;

	CU_ASSERT_EQUAL(msprof_params_pack(&p, "{\"result_dir\": \"/x\"}"), 0);
	CU_ASSERT_EQUAL(p.len, 20);
	CU_ASSERT_STRING_EQUAL(p.data, "{\"result_dir\": \"/x\"}");
	memset(big, 'a', sizeof(big) - 1);
	CU_ASSERT_EQUAL(msprof_params_pack(&p, big), -E2BIG);
}

static void test_json_get_str(void)
{
	const char *json = "{\"note\": \"result_dir\\\"\", \"pid\": 3, \"result_dir\" : \"/a/\\\"b\"}";
	char out[16];

	CU_ASSERT_EQUAL(msprof_json_get_str(json, "result_dir", out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL(out, "/a/\"b");
	CU_ASSERT_EQUAL(msprof_json_get_str(json, "missing", out, sizeof(out)), -ENOENT);
	CU_ASSERT_EQUAL(msprof_json_get_str(json, "result_dir", out, 3), -ENAMETOOLONG);
}

static void test_socket_path(void)
{
	char path[64];

	CU_ASSERT_EQUAL(msprof_socket_path(path, sizeof(path), "/root", 849), 0);
	CU_ASSERT_STRING_EQUAL(path, "/root/dynamic_profiling_socket_849");
	CU_ASSERT_EQUAL(msprof_socket_path(path, 10, "/root", 849), -ENAMETOOLONG);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "message layout matches CANN", test_layout },
		{ "params message packing", test_params_pack },
		{ "params JSON string lookup", test_json_get_str },
		{ "socket path naming", test_socket_path },
		CU_TEST_INFO_NULL,
	};

	return add_suite("protocol", tests);
}

UNIT_SUITE(register_tests)
