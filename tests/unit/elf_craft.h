/* SPDX-License-Identifier: MIT */
/* ELF files the unit tests of host/elfsym.c and host/symcache.c look into. */
#ifndef MSPROF_UNIT_ELF_CRAFT_H
#define MSPROF_UNIT_ELF_CRAFT_H

#include <stddef.h>
#include <stdint.h>

#define WHY_LEN 160

/* elfsym_find_funcs on path, with a budget that is no limit. */
int unit_elf_find_in(const char *path, const char *const *names, size_t n,
		     uint64_t *offs, char *why, size_t len);

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

/* The file, open for reading, unlinked already. */
int unit_elf_craft(const struct craft *c);

#endif
