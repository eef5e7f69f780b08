// SPDX-License-Identifier: MIT
#include <CUnit/CUnit.h>

#include "host/kfeatures.h"
#include "unit.h"

static void test_release_floor(void)
{
	CU_ASSERT_TRUE(kfeatures_release_ok("5.10.0-46-cloud-amd64"));
	CU_ASSERT_TRUE(kfeatures_release_ok("5.15.0-91-generic"));
	CU_ASSERT_TRUE(kfeatures_release_ok("6.1.0-41-arm64"));
	CU_ASSERT_TRUE(kfeatures_release_ok("6.18.44-fc-v669"));
	CU_ASSERT_TRUE(kfeatures_release_ok("10.0"));
	CU_ASSERT_FALSE(kfeatures_release_ok("5.9.16"));
	CU_ASSERT_FALSE(kfeatures_release_ok("5.4.0-150-generic"));
	CU_ASSERT_FALSE(kfeatures_release_ok("4.19.90-2102.2.0.0062.oe1.aarch64"));
	CU_ASSERT_FALSE(kfeatures_release_ok("3.10.0-1160.el7.x86_64"));
	/* Nothing to go by: the feature probes decide. */
	CU_ASSERT_TRUE(kfeatures_release_ok("custom"));
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "kernels from 5.10 on", test_release_floor },
		CU_TEST_INFO_NULL,
	};

	return add_suite("kfeatures", tests);
}

UNIT_SUITE(register_tests)
