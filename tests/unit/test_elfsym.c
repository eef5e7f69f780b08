// SPDX-License-Identifier: MIT
#include <stdint.h>

#include "host/elfsym.h"
#include "host/symcache.h"
#include "unit.h"

/* Exported from the test binary itself (linked with -rdynamic not needed: .symtab). */
__attribute__((noinline, used)) int msprof_unit_probe_target(int x)
{
	return x + 1;
}

static void test_finds_own_function(void)
{
	const char *names[] = { "msprof_unit_probe_target", "no_such_function_here" };
	uint64_t offs[2] = { 1, 1 };

	CU_ASSERT_EQUAL(elfsym_find_funcs("/proc/self/exe", names, 2, offs), 1);
	CU_ASSERT(offs[0] != 0);
	CU_ASSERT_EQUAL(offs[1], 0);
}

static void test_not_elf(void)
{
	const char *names[] = { "main" };
	uint64_t off;

	CU_ASSERT_EQUAL(elfsym_find_funcs("/proc/self/status", names, 1, &off), -ENOEXEC);
	CU_ASSERT_EQUAL(elfsym_find_funcs("/nonexistent", names, 1, &off), -ENOENT);
}

static void test_symcache(void)
{
	static const char *const names[] = { "no_such_function_here",
					     "msprof_unit_probe_target" };
	const uint64_t *offs;
	struct symcache *c;
	uint64_t direct[2];

	CU_ASSERT_EQUAL_FATAL(symcache_new(&c, names, 2), 0);
	CU_ASSERT_EQUAL(elfsym_find_funcs("/proc/self/exe", names, 2, direct), 1);
	offs = symcache_lookup(c, "/proc/self/exe");
	CU_ASSERT_PTR_NOT_NULL_FATAL(offs);
	CU_ASSERT_EQUAL(offs[0], 0);
	CU_ASSERT_EQUAL(offs[1], direct[1]);
	/* The second time from the cache, the same answer. */
	offs = symcache_lookup(c, "/proc/self/exe");
	CU_ASSERT_PTR_NOT_NULL_FATAL(offs);
	CU_ASSERT_EQUAL(offs[1], direct[1]);
	CU_ASSERT_PTR_NULL(symcache_lookup(c, "/proc/self/status"));
	CU_ASSERT_PTR_NULL(symcache_lookup(c, "/proc/self/status"));
	CU_ASSERT_PTR_NULL(symcache_lookup(c, "/nonexistent"));
	symcache_free(c);
}

int register_elfsym_tests(void)
{
	static const CU_TestInfo tests[] = {
		{ "finds a function's file offset", test_finds_own_function },
		{ "refuses what is not ELF", test_not_elf },
		{ "the per-session cache gives the same answers", test_symcache },
		CU_TEST_INFO_NULL,
	};

	return add_suite("elfsym", tests);
}
