// SPDX-License-Identifier: MIT
#include <CUnit/Basic.h>

#include "unit.h"

int add_suite(const char *name, const CU_TestInfo *tests)
{
	CU_pSuite s = CU_add_suite(name, NULL, NULL);
	const CU_TestInfo *t;

	if (!s)
		return -1;
	for (t = tests; t->pName; t++)
		if (!CU_add_test(s, t->pName, t->pTestFunc))
			return -1;
	return 0;
}

int main(void)
{
	unsigned int failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	if (register_options_tests() || register_profdir_tests() ||
	    register_recfile_tests() || register_profdata_tests() ||
	    register_protocol_tests() ||
	    register_elfsym_tests() || register_agent_tests() ||
	    register_cupti_tests()) {
		CU_cleanup_registry();
		return 1;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
