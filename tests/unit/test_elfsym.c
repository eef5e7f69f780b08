// SPDX-License-Identifier: MIT
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/elfsym.h"
#include "host/symcache.h"
#include "unit.h"

/* Exported from the test binary itself (linked with -rdynamic not needed: .symtab). */
__attribute__((noinline, used)) int msprof_unit_probe_target(int x)
{
	return x + 1;
}

/* elfsym_find_funcs on path, with a budget that is no limit. */
static int find_in(const char *path, const char *const *names, size_t n,
		   uint64_t *offs, char *why, size_t len)
{
	uint64_t budget = UINT64_MAX;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = elfsym_find_funcs(fd, names, n, offs, &budget, why, len);
	close(fd);
	return ret;
}

static void test_finds_own_function(void)
{
	const char *names[] = { "msprof_unit_probe_target", "no_such_function_here" };
	uint64_t offs[2] = { 1, 1 };
	char why[128] = "";

	CU_ASSERT_EQUAL(find_in("/proc/self/exe", names, 2, offs, why, sizeof(why)), 1);
	CU_ASSERT(offs[0] != 0);
	CU_ASSERT_EQUAL(offs[1], 0);
	CU_ASSERT_STRING_EQUAL(why, "");
}

static void test_not_elf(void)
{
	const char *names[] = { "main" };
	char why[128] = "";
	uint64_t off;

	CU_ASSERT_EQUAL(find_in("/proc/self/status", names, 1, &off, why, sizeof(why)), -ENOEXEC);
	CU_ASSERT_EQUAL(find_in("/proc/self", names, 1, &off, why, sizeof(why)), -ENOEXEC);
	/* Nothing to say of what is no ELF file at all. */
	CU_ASSERT_STRING_EQUAL(why, "");
}

/*
 * A crafted 64-bit ELF file: one executable segment at 0x1000, one string
 * table and ntables symbol tables (.dynsym and .symtab in turn) that claim
 * what the test says, in a sparse file that holds a few KiB of data.  The
 * first table's symbol 1 is function "f" at 0x1010 (file offset 0x1010).
 */
struct craft {
	unsigned int ntables;
	uint64_t table_bytes;	/* each table's claim, whole symbols */
	uint64_t str_bytes;	/* the string table's claim; 0: 16 */
	uint64_t entsize;	/* 0: sizeof(Elf64_Sym) */
	uint64_t ext_shnum;	/* not 0: e_shnum 0, this count in section 0 */
	uint64_t file_bytes;	/* not 0: the file ends there, before its claims */
	uint64_t code_offset;	/* not 0: where the code segment says it is */
};

#define CRAFT_TABLES 0x2000ull
#define CRAFT_STRINGS 0x800ull

static void craft_headers(int fd, const struct craft *c)
{
	uint64_t entsize = c->entsize ? c->entsize : sizeof(Elf64_Sym);
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64,
			     ELFDATA2LSB, EV_CURRENT },
		.e_type = ET_DYN, .e_version = EV_CURRENT,
		.e_ehsize = sizeof(eh), .e_phoff = sizeof(eh),
		.e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1,
		.e_shoff = sizeof(eh) + sizeof(Elf64_Phdr),
		.e_shentsize = sizeof(Elf64_Shdr),
		.e_shnum = (uint16_t)(c->ext_shnum ? 0 : 2 + c->ntables),
	};
	Elf64_Phdr ph = { .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
			  .p_offset = c->code_offset ? c->code_offset : 0x1000,
			  .p_vaddr = 0x1000,
			  .p_filesz = 0x1000, .p_memsz = 0x1000 };
	Elf64_Shdr sh[8] = { { .sh_size = c->ext_shnum } };
	unsigned int i;

	sh[1] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_offset = CRAFT_STRINGS,
			      .sh_size = c->str_bytes ? c->str_bytes : 16 };
	for (i = 0; i < c->ntables && i < 6; i++)
		sh[2 + i] = (Elf64_Shdr){
			.sh_type = i % 2 ? SHT_SYMTAB : SHT_DYNSYM,
			.sh_link = 1, .sh_addralign = 8, .sh_entsize = entsize,
			.sh_offset = CRAFT_TABLES + i * c->table_bytes,
			.sh_size = c->table_bytes / entsize * entsize,
		};
	CU_ASSERT_EQUAL(pwrite(fd, &eh, sizeof(eh), 0), (ssize_t)sizeof(eh));
	CU_ASSERT_EQUAL(pwrite(fd, &ph, sizeof(ph), eh.e_phoff), (ssize_t)sizeof(ph));
	CU_ASSERT_EQUAL(pwrite(fd, sh, sizeof(sh), eh.e_shoff), (ssize_t)sizeof(sh));
}

/* The file, open for reading, unlinked already. */
static int craft_file(const struct craft *c)
{
	Elf64_Sym f = { .st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
			.st_shndx = 1, .st_value = 0x1010, .st_size = 16 };
	uint64_t end = CRAFT_TABLES + c->ntables * c->table_bytes;
	char path[] = "/tmp/msprof-unit-elf.XXXXXX";
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	unlink(path);
	craft_headers(fd, c);
	CU_ASSERT_EQUAL(pwrite(fd, "\0f\0", 3, CRAFT_STRINGS), 3);
	CU_ASSERT_EQUAL(pwrite(fd, &f, sizeof(f), CRAFT_TABLES + sizeof(f)),
			(ssize_t)sizeof(f));
	if (CRAFT_STRINGS + c->str_bytes > end)
		end = CRAFT_STRINGS + c->str_bytes;
	if (c->file_bytes)
		end = c->file_bytes;
	CU_ASSERT_EQUAL_FATAL(ftruncate(fd, (off_t)end), 0);
	return fd;
}

/* What msprof may take beyond its own buffers (about 300 KiB) for one file. */
#define ELF_RSS_SLACK_KIB 4096

#define WHY_LEN 160

/*
 * The crafted file, looked up for "f" with *budget and why[WHY_LEN] (set
 * to "" first); whatever it claims, the peak RSS must not follow.
 */
static int craft_lookup(const struct craft *c, uint64_t *budget, char *why,
			uint64_t *off)
{
	const char *names[] = { "f" };
	int fd = craft_file(c), ret;
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
	CU_ASSERT_EQUAL(find_in(self, names, 2, direct, why, sizeof(why)), 1);
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
	int fd = craft_file(&cr), i;
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
		{ "finds a function's file offset", test_finds_own_function },
		{ "refuses what is not ELF", test_not_elf },
		{ "symbol tables claiming 1 GiB: refused, memory unmoved", test_huge_tables },
		{ "tables under the bound read in chunks, a 1 GiB string table by the name", test_big_tables_chunked },
		{ "one .dynsym and one .symtab read, no more", test_first_tables_only },
		{ "a function whose code is not in the file is not found", test_code_outside_file },
		{ "too many sections, odd symbols, tables past the end: refused, said", test_refusals },
		{ "a start's share of reading: -ENOSPC past it", test_budget },
		{ "the per-session cache gives the same answers", test_symcache },
		{ "the cache remembers a refusal and says it again", test_symcache_refusal },
		CU_TEST_INFO_NULL,
	};

	return add_suite("elfsym", tests);
}

UNIT_SUITE(register_tests)
