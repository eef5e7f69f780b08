// SPDX-License-Identifier: MIT
/*
 * npusim's libhccl arithmetic (tools/npusim/hccl/hccl_reduce.c), here
 * under UBSan: integers wrap as the hardware's do, with no undefined
 * overflow on the way.
 */
#include <stdint.h>

#include "../../tools/npusim/hccl/hccl_internal.h"
#include "unit.h"

static void test_sizes(void)
{
	CU_ASSERT_EQUAL(hccl_type_size(HCCL_DATA_TYPE_INT8), 1);
	CU_ASSERT_EQUAL(hccl_type_size(HCCL_DATA_TYPE_FP16), 2);
	CU_ASSERT_EQUAL(hccl_type_size(HCCL_DATA_TYPE_FP32), 4);
	CU_ASSERT_EQUAL(hccl_type_size(HCCL_DATA_TYPE_UINT64), 8);
	CU_ASSERT_EQUAL(hccl_type_size(HCCL_DATA_TYPE_RESERVED), 0);
	CU_ASSERT_EQUAL(hccl_type_size((HcclDataType)-1), 0);
	CU_ASSERT(hccl_type_reduces(HCCL_DATA_TYPE_FP64));
	CU_ASSERT(!hccl_type_reduces(HCCL_DATA_TYPE_BFP16));
	CU_ASSERT(!hccl_type_reduces(HCCL_DATA_TYPE_RESERVED));
}

static void test_ops(void)
{
	int32_t d[4] = { 1, -2, 3, 4 };
	const int32_t s[4] = { 5, 6, -7, 4 };
	double f[2] = { 1.5, -2 };
	const double g[2] = { 2, 0.25 };

	hccl_reduce(d, s, 4, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM);
	CU_ASSERT(d[0] == 6 && d[1] == 4 && d[2] == -4 && d[3] == 8);
	hccl_reduce(d, s, 4, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MAX);
	CU_ASSERT(d[0] == 6 && d[1] == 6 && d[2] == -4 && d[3] == 8);
	hccl_reduce(d, s, 4, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MIN);
	CU_ASSERT(d[0] == 5 && d[1] == 6 && d[2] == -7 && d[3] == 4);
	hccl_reduce(f, g, 2, HCCL_DATA_TYPE_FP64, HCCL_REDUCE_PROD);
	CU_ASSERT(f[0] == 3.0 && f[1] == -0.5);
	/* Only n elements: the one past them stays. */
	hccl_reduce(d, s, 3, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM);
	CU_ASSERT(d[3] == 4);
}

/* Each of these overflows: undefined in plain C, a wrap here. */
static void test_wrap(void)
{
	int32_t i32 = INT32_MAX;
	const int32_t one32 = 1;
	uint16_t u16 = 65535;
	const uint16_t u16s = 65535;
	int64_t i64 = INT64_MIN;
	const int64_t m64 = -1;
	int8_t i8 = 127;
	const int8_t i8s = 2;

	hccl_reduce(&i32, &one32, 1, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM);
	CU_ASSERT_EQUAL(i32, INT32_MIN);
	hccl_reduce(&u16, &u16s, 1, HCCL_DATA_TYPE_UINT16, HCCL_REDUCE_PROD);
	CU_ASSERT_EQUAL(u16, 1);	/* 65535^2 mod 2^16 */
	hccl_reduce(&i64, &m64, 1, HCCL_DATA_TYPE_INT64, HCCL_REDUCE_PROD);
	CU_ASSERT_EQUAL(i64, INT64_MIN);
	hccl_reduce(&i8, &i8s, 1, HCCL_DATA_TYPE_INT8, HCCL_REDUCE_SUM);
	CU_ASSERT_EQUAL(i8, -127);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "element sizes and which types reduce", test_sizes },
		{ "sum, max, min and product", test_ops },
		{ "integer overflow wraps", test_wrap },
		CU_TEST_INFO_NULL,
	};

	return add_suite("hccl_reduce", tests);
}

UNIT_SUITE(register_tests)
