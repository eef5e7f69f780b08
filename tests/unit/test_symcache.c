// SPDX-License-Identifier: MIT
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elf_craft.h"
#include "host/symcache.h"
#include "unit.h"

static void test_symcache(void)
{
	static const char *const names[] = { "no_such_function_here",
					     "msprof_unit_probe_target" };
	const uint64_t *offs;
	struct symcache *c;
	uint64_t direct[2];
	char why[WHY_LEN] = "", self[PATH_MAX];
	ssize_t n;

	/*
	 * The test program's own path: qemu-user shows /proc/self/exe to
	 * open() as the program it runs, but to stat() as itself.
	 */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	CU_ASSERT_FATAL(n > 0);
	self[n] = '\0';
	CU_ASSERT_EQUAL_FATAL(symcache_new(&c, names, 2), 0);
	CU_ASSERT_EQUAL(unit_elf_find_in(self, names, 2, direct, why, sizeof(why)), 1);
	CU_ASSERT_EQUAL(symcache_lookup(c, self, &offs, why, sizeof(why)), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(offs);
	CU_ASSERT_EQUAL(offs[0], 0);
	CU_ASSERT_EQUAL(offs[1], direct[1]);
	/* The second time from the cache, the same answer. */
	CU_ASSERT_EQUAL(symcache_lookup(c, self, &offs, why, sizeof(why)), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(offs);
	CU_ASSERT_EQUAL(offs[1], direct[1]);
	CU_ASSERT_EQUAL(symcache_lookup(c, "/proc/self/status", &offs, why, sizeof(why)), 0);
	CU_ASSERT_PTR_NULL(offs);
	CU_ASSERT_EQUAL(symcache_lookup(c, "/proc/self/status", &offs, why, sizeof(why)), 0);
	CU_ASSERT_PTR_NULL(offs);
	CU_ASSERT_EQUAL(symcache_lookup(c, "/nonexistent", &offs, why, sizeof(why)), 0);
	CU_ASSERT_PTR_NULL(offs);
	/* Not even opened: a device can do things when opened. */
	CU_ASSERT_EQUAL(symcache_lookup(c, "/dev/null", &offs, why, sizeof(why)), 0);
	CU_ASSERT_PTR_NULL(offs);
	CU_ASSERT_STRING_EQUAL(why, "");
	symcache_free(c);
}

/* A refusal is remembered, words and all, and said at every lookup. */
static void test_symcache_refusal(void)
{
	static const char *const names[] = { "f" };
	const struct craft cr = { .ntables = 4, .table_bytes = 256ull << 20 };
	int fd = unit_elf_craft(&cr), i;
	char path[64], why[WHY_LEN];
	const uint64_t *offs;
	struct symcache *c;

	CU_ASSERT_EQUAL_FATAL(symcache_new(&c, names, 1), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	for (i = 0; i < 2; i++) {
		*why = '\0';
		CU_ASSERT_EQUAL(symcache_lookup(c, path, &offs, why, sizeof(why)), -EFBIG);
		CU_ASSERT_PTR_NULL(offs);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, "more than the 64 MiB read"));
	}
	symcache_free(c);
	close(fd);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "the per-session cache gives the same answers", test_symcache },
		{ "the cache remembers a refusal and says it again", test_symcache_refusal },
		CU_TEST_INFO_NULL,
	};

	return add_suite("symcache", tests);
}

UNIT_SUITE(register_tests)
