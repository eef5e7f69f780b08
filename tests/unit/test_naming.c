// SPDX-License-Identifier: MIT
/*
 * msprof's names for what we record (user/export/naming.c): every layer has
 * a slice prefix, a level and its number, so that a layer added to enum
 * msprof_api_layer and forgotten here fails a test, not an export.
 */
#include <string.h>

#include "export/naming.h"
#include "msprof/probe_packs.h"
#include "unit.h"

static void test_layers(void)
{
	unsigned int l, m;

	for (l = 0; l < MSPROF_LAYER_MAX; l++) {
		const struct layer_naming *n = naming_layer(l);

		CU_ASSERT_PTR_NOT_NULL_FATAL(n->prefix);
		CU_ASSERT_PTR_NOT_NULL_FATAL(n->level);
		CU_ASSERT_EQUAL(n->prefix[strlen(n->prefix) - 1], '@');
		CU_ASSERT(n->level_id == 20000 || n->level_id == 5000 ||
			  (l == MSPROF_LAYER_MSTX && n->level_id == 20500));
		/* Two layers of one level are HCCL's, shown as acl's (HOST_HCCL). */
		for (m = 0; m < l; m++)
			if (m != MSPROF_LAYER_ACL || l != MSPROF_LAYER_HCCL)
				CU_ASSERT_STRING_NOT_EQUAL(n->level,
							   naming_layer(m)->level);
	}
	CU_ASSERT_STRING_EQUAL(naming_layer(MSPROF_LAYER_MAX)->prefix, "Api@");
	CU_ASSERT_STRING_EQUAL(naming_layer(UINT32_MAX)->level, "api");
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "layers: each with a prefix, a level and its number", test_layers },
		CU_TEST_INFO_NULL,
	};

	return add_suite("naming", tests);
}
UNIT_SUITE(register_tests)
