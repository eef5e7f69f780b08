// SPDX-License-Identifier: MIT
/* Where a function lives in a library file, from its symbol tables. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsym.h"

/* Converts a symbol's address into the file offset of its code. */
static uint64_t vaddr_to_offset(Elf *elf, uint64_t addr)
{
	size_t i, nph;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nph))
		return 0;
	for (i = 0; i < nph; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_memsz)
			return addr - ph.p_vaddr + ph.p_offset;
	}
	return 0;
}

static size_t name_len(const char *sym)
{
	const char *at = strchr(sym, '@');

	return at ? (size_t)(at - sym) : strlen(sym);
}

static int scan_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
		       const char *const *names, size_t n, uint64_t *offsets)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, j, count;
	int found = 0;

	if (!data || !sh->sh_entsize)
		return 0;
	count = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < count; i++) {
		GElf_Sym sym;
		const char *s;
		size_t len;

		if (!gelf_getsym(data, (int)i, &sym) ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		s = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!s)
			continue;
		len = name_len(s);
		for (j = 0; j < n; j++) {
			if (offsets[j] || strlen(names[j]) != len ||
			    strncmp(names[j], s, len))
				continue;
			offsets[j] = vaddr_to_offset(elf, sym.st_value);
			found += offsets[j] != 0;
		}
	}
	return found;
}

int elfsym_find_funcs(const char *path, const char *const *names, size_t n,
		   uint64_t *offsets)
{
	Elf_Scn *scn = NULL;
	int fd, found = 0;
	struct stat st;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	/* A task's file: a FIFO or a device in its place must not hang us. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOEXEC;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -ENOEXEC;
	}
	memset(offsets, 0, n * sizeof(*offsets));
	/* .dynsym is what a shared library exports; .symtab adds the rest. */
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_DYNSYM || sh.sh_type == SHT_SYMTAB))
			found += scan_symtab(elf, scn, &sh, names, n, offsets);
	}
	elf_end(elf);
	close(fd);
	return found;
}
