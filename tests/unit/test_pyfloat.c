// SPDX-License-Identifier: MIT
/*
 * Python's repr() of a float (user/export/pyfloat.c), which the CSVs of
 * msprof's Python analysis print: each case as Python 3.11 printed it.
 */
#include <math.h>
#include <string.h>

#include "export/pyfloat.h"
#include "unit.h"

static void check(double v, const char *want)
{
	char buf[PYFLOAT_MAX];
	size_t n = pyfloat_repr(buf, v);

	CU_ASSERT_EQUAL(n, strlen(want));
	CU_ASSERT_STRING_EQUAL(buf, want);
}

static void test_repr(void)
{
	check(0.0, "0.0");
	check(-0.0, "-0.0");
	check(1.0, "1.0");
	check(0.1, "0.1");
	check(0x1.063e7063e7064p-1, "0.5121951219512195");
	check(0x1.9555555555555p+1, "3.1666666666666665");
	check(229496.0, "229496.0");
	check(-12.75, "-12.75");
	check(0x1.5555555555555p-2, "0.3333333333333333");
	check(0x1.33df1e9ac583dp-2, "0.30065582103395966");
	/* Fixed from 1e-4 to below 1e16, else an exponent of two digits or more. */
	check(0x1.a36e2eb1c432dp-14, "0.0001");
	check(0x1.4f8b588e368f1p-17, "1e-05");
	check(0x1.a19b726e26724p-15, "4.978265938966459e-05");
	check(0x1.179ec9cbd821ep-14, "6.666666666666667e-05");
	check(1e15, "1000000000000000.0");
	check(1e16, "1e+16");
	check(0x1.b69b4ba630f35p+56, "1.2345678901234568e+17");
	check(7e22, "7e+22");
	check(0x1.01297d23ab683p-996, "1.5e-300");
	check(0x1.ddd4baa009303p+997, "2.5e+300");
	check(0x0.0000000000001p-1022, "5e-324");
	check(NAN, "nan");
	check(-INFINITY, "-inf");
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "repr: shortest digits, Python's notation", test_repr },
		CU_TEST_INFO_NULL,
	};

	return add_suite("pyfloat", tests);
}
UNIT_SUITE(register_tests)
