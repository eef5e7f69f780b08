// SPDX-License-Identifier: MIT
/* The keyed hash of the exporters' tables (common/keyhash.c). */
#include "common/keyhash.h"
#include "unit.h"

/* The published SipHash-2-4 vectors: key 00..0f, messages 00.. of 0 and 15 bytes. */
static void test_keyhash(void)
{
	struct keyhash_key key = { { 0x0706050403020100ull,
				     0x0f0e0d0c0b0a0908ull } };
	unsigned char msg[15];
	unsigned int i;

	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (unsigned char)i;
	CU_ASSERT_EQUAL(keyhash(&key, msg, 0), 0x726fdb47dd0e0e31ull);
	CU_ASSERT_EQUAL(keyhash(&key, msg, 15), 0xa129ca6149be45e5ull);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "the keyed hash is SipHash-2-4", test_keyhash },
		CU_TEST_INFO_NULL,
	};

	return add_suite("keyhash", tests);
}

UNIT_SUITE(register_tests)
