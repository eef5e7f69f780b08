// SPDX-License-Identifier: MIT
#include <stdint.h>
#include <stdlib.h>

#include "common/growarr.h"
#include "unit.h"

static void test_push_keeps_elements(void)
{
	size_t n = 0, cap = 0, i;
	int *arr = NULL, *slot;

	for (i = 0; i < 1000; i++) {
		slot = growarr_push((void **)&arr, &n, &cap, sizeof(*arr));
		CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
		*slot = (int)i;
	}
	CU_ASSERT_EQUAL(n, 1000);
	CU_ASSERT(cap >= n);
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL(arr[i], (int)i);
	free(arr);
}

/* A room whose bytes do not fit a size_t is refused, the array kept. */
static void test_push_overflow(void)
{
	char one[1], *arr = one;
	size_t cap = SIZE_MAX / 2 + 1, n = cap;

	CU_ASSERT_PTR_NULL(growarr_push((void **)&arr, &n, &cap, 1));
	CU_ASSERT_PTR_EQUAL(arr, one);
	CU_ASSERT_EQUAL(n, SIZE_MAX / 2 + 1);
	cap = n = SIZE_MAX / 16;
	CU_ASSERT_PTR_NULL(growarr_push((void **)&arr, &n, &cap, 16));
	CU_ASSERT_PTR_EQUAL(arr, one);
	CU_ASSERT_EQUAL(cap, SIZE_MAX / 16);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "pushed elements are kept in order", test_push_keeps_elements },
		{ "a size past size_t is refused", test_push_overflow },
		CU_TEST_INFO_NULL,
	};

	return add_suite("growarr", tests);
}

UNIT_SUITE(register_tests)
