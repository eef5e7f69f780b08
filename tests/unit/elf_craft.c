// SPDX-License-Identifier: MIT
/* ELF files the unit tests of host/elfsym.c and host/symcache.c look into. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "elf_craft.h"
#include "host/elfsym.h"
#include "unit.h"

/* Exported from the test binary itself (linked with -rdynamic not needed: .symtab). */
__attribute__((noinline, used)) int msprof_unit_probe_target(int x)
{
	return x + 1;
}

int unit_elf_find_in(const char *path, const char *const *names, size_t n,
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

int unit_elf_craft(const struct craft *c)
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
