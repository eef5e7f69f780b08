// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elf_craft.h"
#include "host/elfsym.h"
#include "unit.h"

static void test_finds_own_function(void)
{
	const char *names[] = { "msprof_unit_probe_target", "no_such_function_here" };
	uint64_t offs[2] = { 1, 1 };
	char why[128] = "";

	CU_ASSERT_EQUAL(unit_elf_find_in("/proc/self/exe", names, 2, offs, why, sizeof(why)), 1);
	CU_ASSERT(offs[0] != 0);
	CU_ASSERT_EQUAL(offs[1], 0);
	CU_ASSERT_STRING_EQUAL(why, "");
}

static void test_not_elf(void)
{
	const char *names[] = { "main" };
	char why[128] = "";
	uint64_t off;

	CU_ASSERT_EQUAL(unit_elf_find_in("/proc/self/status", names, 1, &off, why, sizeof(why)), -ENOEXEC);
	CU_ASSERT_EQUAL(unit_elf_find_in("/proc/self", names, 1, &off, why, sizeof(why)), -ENOEXEC);
	/* Nothing to say of what is no ELF file at all. */
	CU_ASSERT_STRING_EQUAL(why, "");
}

/* What msprof may take beyond its own buffers (about 300 KiB) for one file. */
#define ELF_RSS_SLACK_KIB 4096

/*
 * The crafted file, looked up for "f" with *budget and why[WHY_LEN] (set
 * to "" first); whatever it claims, the peak RSS must not follow.
 */
static int craft_lookup(const struct craft *c, uint64_t *budget, char *why,
			uint64_t *off)
{
	const char *names[] = { "f" };
	int fd = unit_elf_craft(c), ret;
	long before = unit_peak_reset(), rss;

	*why = '\0';
	ret = elfsym_find_funcs(fd, names, 1, off, budget, why, WHY_LEN);
	rss = unit_peak_kib() - before;
	CU_ASSERT(rss < ELF_RSS_SLACK_KIB);
	if (rss >= ELF_RSS_SLACK_KIB)
		fprintf(stderr, "\n    peak RSS rose by %ld KiB\n", rss);
	close(fd);
	return ret;
}

/*
 * The review's file: four symbol tables of 256 MiB each in a sparse file
 * (libelf read each whole: 1 GiB of root's memory).  Refused before a
 * symbol is read, naming the bound, and memory stays where it was.
 */
static void test_huge_tables(void)
{
	const struct craft c = { .ntables = 4, .table_bytes = 256ull << 20 };
	uint64_t budget = UINT64_MAX, off = 1;
	char why[WHY_LEN];

	CU_ASSERT_EQUAL(craft_lookup(&c, &budget, why, &off), -EFBIG);
	CU_ASSERT_STRING_EQUAL(why, "symbol tables of 512 MiB, more than the 64 MiB read");
	CU_ASSERT_EQUAL(budget, UINT64_MAX);
}

/*
 * Tables under the bound are read, in chunks: a 48 MiB .dynsym of holes
 * costs time, not memory.  A string table of 1 GiB is never loaded (a
 * name is read where it is): "f" is found.
 */
static void test_big_tables_chunked(void)
{
	const struct craft c = { .ntables = 1, .table_bytes = 48ull << 20,
				 .str_bytes = 1ull << 30 };
	uint64_t budget = UINT64_MAX, off = 0;
	char why[WHY_LEN];

	CU_ASSERT_EQUAL(craft_lookup(&c, &budget, why, &off), 1);
	CU_ASSERT_EQUAL(off, 0x1010);
	CU_ASSERT_STRING_EQUAL(why, "");
	CU_ASSERT_EQUAL(budget, UINT64_MAX - (48ull << 20) / 24 * 24);
}

/* Only the first table of each kind: a third and fourth are not read. */
static void test_first_tables_only(void)
{
	const struct craft c = { .ntables = 4, .table_bytes = 8ull << 20 };
	uint64_t budget = UINT64_MAX, off = 0;
	char why[WHY_LEN];

	CU_ASSERT_EQUAL(craft_lookup(&c, &budget, why, &off), 1);
	CU_ASSERT_EQUAL(UINT64_MAX - budget, 2 * ((8ull << 20) / 24 * 24));
}

/*
 * A function whose code the file does not hold is not found: the kernel
 * would refuse its uprobe, and with it the task's whole start.
 */
static void test_code_outside_file(void)
{
	const struct craft c = { .ntables = 1, .table_bytes = 4096,
				 .code_offset = 1ull << 40 };
	uint64_t budget = UINT64_MAX, off = 1;
	char why[WHY_LEN];

	CU_ASSERT_EQUAL(craft_lookup(&c, &budget, why, &off), 0);
	CU_ASSERT_EQUAL(off, 0);
}

/* Claims past the other bounds, or malformed: refused, each said. */
static void test_refusals(void)
{
	static const struct {
		struct craft c;
		int err;
		const char *why;
	} cases[] = {
		{ { .ntables = 1, .table_bytes = 4096, .ext_shnum = 1u << 30 },
		  -EFBIG, "1073741824 sections, more than the 4096 read" },
		{ { .ntables = 1, .table_bytes = 4096, .entsize = 16 },
		  -EINVAL, "symbols of 16 bytes, not 24" },
		{ { .ntables = 1, .table_bytes = 1u << 20,
		    .file_bytes = CRAFT_TABLES + (512u << 10) },
		  -EINVAL, "a symbol table past its end" },
		{ { .ntables = 1, .table_bytes = 4096, .str_bytes = 1ull << 40,
		    .file_bytes = CRAFT_TABLES + 4096 },
		  -EINVAL, "a symbol table without names" },
	};
	uint64_t budget, off;
	char why[WHY_LEN];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		budget = UINT64_MAX;
		CU_ASSERT_EQUAL(craft_lookup(&cases[i].c, &budget, why, &off),
				cases[i].err);
		CU_ASSERT_STRING_EQUAL(why, cases[i].why);
	}
}

/* A start's share: past it -ENOSPC, and what was not read is not spent. */
static void test_budget(void)
{
	const struct craft c = { .ntables = 1, .table_bytes = 2u << 20 };
	uint64_t budget = 1u << 20, off;
	char why[WHY_LEN];

	CU_ASSERT_EQUAL(craft_lookup(&c, &budget, why, &off), -ENOSPC);
	CU_ASSERT_STRING_EQUAL(why, "symbol tables of 2 MiB, more than the 1 MiB this start may still read");
	CU_ASSERT_EQUAL(budget, 1u << 20);
	budget = 3u << 20;
	CU_ASSERT_EQUAL(craft_lookup(&c, &budget, why, &off), 1);
	CU_ASSERT_EQUAL(budget, (3u << 20) - (2u << 20) / 24 * 24);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "finds a function's file offset", test_finds_own_function },
		{ "refuses what is not ELF", test_not_elf },
		{ "symbol tables claiming 1 GiB: refused, memory unmoved", test_huge_tables },
		{ "tables under the bound read in chunks, a 1 GiB string table by the name", test_big_tables_chunked },
		{ "one .dynsym and one .symtab read, no more", test_first_tables_only },
		{ "a function whose code is not in the file is not found", test_code_outside_file },
		{ "too many sections, odd symbols, tables past the end: refused, said", test_refusals },
		{ "a start's share of reading: -ENOSPC past it", test_budget },
		CU_TEST_INFO_NULL,
	};

	return add_suite("elfsym", tests);
}

UNIT_SUITE(register_tests)
