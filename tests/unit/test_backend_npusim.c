// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stddef.h>

#include "msprof/agent_backend.h"
#include "unit.h"

static void test_npusim_absent(void)
{
	void *state = NULL;

	CU_ASSERT_EQUAL(msprof_backend_npusim.open(&state), -ENODEV);
	CU_ASSERT_PTR_NULL(state);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "npusim backend needs npusim in the process", test_npusim_absent },
		CU_TEST_INFO_NULL,
	};

	return add_suite("backend_npusim", tests);
}

UNIT_SUITE(register_tests)
