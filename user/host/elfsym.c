// SPDX-License-Identifier: MIT
/*
 * Where a function lives in a library file, from its symbol tables.  The
 * file is a task's, so every offset, count and size in it is a claim that
 * is checked against the file's size and the bounds in elfsym.h before
 * anything is read, and what is read goes through fixed buffers: libelf
 * would load a section (and the section header table) whole, however big
 * it says it is.
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsym.h"

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_DATA ELFDATA2LSB
#else
#define NATIVE_DATA ELFDATA2MSB
#endif

/* Symbols are read this many bytes at a time (2048 Elf64_Sym). */
#define SYM_CHUNK (2048 * sizeof(Elf64_Sym))
/*
 * A string table up to this size is read whole, once (a runtime's
 * .dynstr is tens of KiB); from a bigger one, a name at a time.
 */
#define STR_WHOLE (256u << 10)
#define STR_NAME 4096

struct segment {
	uint64_t vaddr, filesz, offset;
};

struct section {
	uint32_t type, link;
	uint64_t offset, size, entsize;
};

/*
 * A symbol table to read, the string table its names are in and, for
 * .dynsym, its symbol versions (.gnu.version, an Elf_Versym a symbol;
 * offset 0: none).
 */
struct table {
	uint64_t offset, count;
	uint64_t str_offset, str_size;
	uint64_t versym;
};

/*
 * A symbol of a version that is not the name's default: what old binaries
 * linked against (glibc's pthread_cond_timedwait@GLIBC_2.2.5), never what
 * a call by that name reaches now.
 */
#define VERSYM_HIDDEN 0x8000

struct elf_file {
	int fd;
	uint64_t size;		/* at the start: nothing past it is read */
	bool is64;
	uint64_t shoff;
	uint32_t shnum;
	/* The executable PT_LOADs, where functions are. */
	struct segment xseg[ELFSYM_MAX_SEGMENTS];
	size_t nxseg;
	char *why;
	size_t why_len;
	size_t *lens;		/* of the names */
	unsigned char want;	/* STT_FUNC: file offsets; STT_OBJECT: addresses */
	size_t maxlen;
	unsigned char chunk[SYM_CHUNK];
	uint16_t versyms[SYM_CHUNK / sizeof(Elf32_Sym)];
	uint64_t win_off;	/* the file's bytes at win_off are in win */
	size_t win_len;
	char win[STR_WHOLE];
};

static int refuse(struct elf_file *ef, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ef->why, ef->why_len, fmt, ap);
	va_end(ap);
	return err;
}

/* len bytes at off, all inside the file as it was when we began. */
static int read_at(const struct elf_file *ef, void *buf, size_t len,
		   uint64_t off)
{
	size_t done = 0;
	ssize_t r;

	if (off > ef->size || len > ef->size - off)
		return -ERANGE;
	while (done < len) {
		r = pread(ef->fd, (char *)buf + done, len - done,
			  (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return -EIO;	/* cut short since we began */
		done += (size_t)r;
	}
	return 0;
}

/* Whether [off, off + len) lies inside the file. */
static bool inside(const struct elf_file *ef, uint64_t off, uint64_t len)
{
	return off <= ef->size && len <= ef->size - off;
}

static int read_section(struct elf_file *ef, uint32_t i, struct section *s)
{
	union {
		Elf32_Shdr h32;
		Elf64_Shdr h64;
	} h;
	size_t len = ef->is64 ? sizeof(h.h64) : sizeof(h.h32);
	int err = read_at(ef, &h, len, ef->shoff + (uint64_t)i * len);

	if (err)
		return err;
	if (ef->is64)
		*s = (struct section){ h.h64.sh_type, h.h64.sh_link,
				       h.h64.sh_offset, h.h64.sh_size,
				       h.h64.sh_entsize };
	else
		*s = (struct section){ h.h32.sh_type, h.h32.sh_link,
				       h.h32.sh_offset, h.h32.sh_size,
				       h.h32.sh_entsize };
	return 0;
}

/* A program header: kept if it loads code, where symbols point. */
static int read_segment(struct elf_file *ef, uint64_t off)
{
	union {
		Elf32_Phdr h32;
		Elf64_Phdr h64;
	} h;
	struct segment *s = &ef->xseg[ef->nxseg];
	size_t len = ef->is64 ? sizeof(h.h64) : sizeof(h.h32);
	int err = read_at(ef, &h, len, off);

	if (err)
		return err;
	if (ef->is64 && h.h64.p_type == PT_LOAD && (h.h64.p_flags & PF_X)) {
		*s = (struct segment){ h.h64.p_vaddr, h.h64.p_filesz,
				       h.h64.p_offset };
		ef->nxseg++;
	} else if (!ef->is64 && h.h32.p_type == PT_LOAD &&
		   (h.h32.p_flags & PF_X)) {
		*s = (struct segment){ h.h32.p_vaddr, h.h32.p_filesz,
				       h.h32.p_offset };
		ef->nxseg++;
	}
	return 0;
}

/* The header fields we use, either class, in the common form. */
struct header {
	uint64_t phoff, shoff;
	uint32_t phnum, shnum;
	uint32_t phentsize, shentsize;
};

/* -ENOEXEC, and no word, for what is not an ELF file we could probe. */
static int read_header(struct elf_file *ef, struct header *hd)
{
	union {
		unsigned char id[EI_NIDENT];
		Elf32_Ehdr h32;
		Elf64_Ehdr h64;
	} h;

	if (read_at(ef, h.id, EI_NIDENT, 0) || memcmp(h.id, ELFMAG, SELFMAG) ||
	    (h.id[EI_CLASS] != ELFCLASS32 && h.id[EI_CLASS] != ELFCLASS64) ||
	    h.id[EI_DATA] != NATIVE_DATA || h.id[EI_VERSION] != EV_CURRENT)
		return -ENOEXEC;
	ef->is64 = h.id[EI_CLASS] == ELFCLASS64;
	if (read_at(ef, &h, ef->is64 ? sizeof(h.h64) : sizeof(h.h32), 0))
		return -ENOEXEC;
	if (ef->is64)
		*hd = (struct header){ h.h64.e_phoff, h.h64.e_shoff,
				       h.h64.e_phnum, h.h64.e_shnum,
				       h.h64.e_phentsize, h.h64.e_shentsize };
	else
		*hd = (struct header){ h.h32.e_phoff, h.h32.e_shoff,
				       h.h32.e_phnum, h.h32.e_shnum,
				       h.h32.e_phentsize, h.h32.e_shentsize };
	return 0;
}

/* The code segments, and where the section headers are. */
static int read_layout(struct elf_file *ef)
{
	size_t shlen, phlen;
	struct section s0;
	struct header hd;
	uint32_t i;
	int err;

	err = read_header(ef, &hd);
	if (err)
		return err;
	shlen = ef->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	phlen = ef->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	/* PN_XNUM: the real count is elsewhere, and past the bound anyway. */
	if (hd.phnum > ELFSYM_MAX_SEGMENTS)
		return refuse(ef, -EFBIG, "%u program headers, more than the %u read",
			      hd.phnum, ELFSYM_MAX_SEGMENTS);
	if (hd.phnum && (hd.phentsize != phlen ||
			 !inside(ef, hd.phoff, (uint64_t)hd.phnum * phlen)))
		return refuse(ef, -EINVAL, "its program headers are not where or what it says");
	for (i = 0; i < hd.phnum; i++) {
		err = read_segment(ef, hd.phoff + (uint64_t)i * phlen);
		if (err)
			return err;
	}
	ef->shoff = hd.shoff;
	ef->shnum = hd.shnum;
	if (!hd.shoff)
		return 0;	/* no sections: nothing to look up */
	if (hd.shentsize != shlen)
		return refuse(ef, -EINVAL, "section headers of %u bytes", hd.shentsize);
	/* A count past 0xff00 is kept in section 0. */
	if (!ef->shnum) {
		err = read_section(ef, 0, &s0);
		if (err)
			return err == -ERANGE ?
			       refuse(ef, -EINVAL, "its section headers are past its end") : err;
		if (s0.size > ELFSYM_MAX_SECTIONS)
			return refuse(ef, -EFBIG, "%llu sections, more than the %u read",
				      (unsigned long long)s0.size, ELFSYM_MAX_SECTIONS);
		ef->shnum = (uint32_t)s0.size;
	}
	if (ef->shnum > ELFSYM_MAX_SECTIONS)
		return refuse(ef, -EFBIG, "%u sections, more than the %u read",
			      ef->shnum, ELFSYM_MAX_SECTIONS);
	if (!inside(ef, hd.shoff, (uint64_t)ef->shnum * shlen))
		return refuse(ef, -EINVAL, "its section headers are past its end");
	return 0;
}

/* Section s, a symbol table, checked and described as t. */
static int take_table(struct elf_file *ef, const struct section *s,
		      struct table *t)
{
	size_t symlen = ef->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	struct section str;
	int err;

	if (s->entsize != symlen)
		return refuse(ef, -EINVAL, "symbols of %llu bytes, not %zu",
			      (unsigned long long)s->entsize, symlen);
	if (!inside(ef, s->offset, s->size))
		return refuse(ef, -EINVAL, "a symbol table past its end");
	if (!s->link || s->link >= ef->shnum)
		return refuse(ef, -EINVAL, "a symbol table without names");
	err = read_section(ef, s->link, &str);
	if (err)
		return err;
	if (str.type != SHT_STRTAB || !inside(ef, str.offset, str.size))
		return refuse(ef, -EINVAL, "a symbol table without names");
	*t = (struct table){ .offset = s->offset, .count = s->size / symlen,
			     .str_offset = str.offset, .str_size = str.size };
	return 0;
}

/* .gnu.version of the .dynsym that is section dyn, if it is whole. */
static void take_versym(struct elf_file *ef, const struct section *s,
			uint32_t dyn, struct table *t)
{
	if (s->link == dyn && s->entsize == sizeof(uint16_t) &&
	    s->size == t->count * sizeof(uint16_t) && inside(ef, s->offset, s->size))
		t->versym = s->offset;
}

/*
 * The first .dynsym (what a shared library exports) and the first .symtab
 * (the rest); an object has at most one of each, and more are not read.
 */
static int find_tables(struct elf_file *ef, struct table t[2], size_t *n,
		       uint64_t budget)
{
	size_t symlen = ef->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	bool seen_dyn = false, seen_sym = false;
	struct section s, versym = { 0 };
	uint32_t i, dyn = 0;
	unsigned long long mib;
	uint64_t bytes = 0;
	int err;

	*n = 0;
	for (i = 1; i < ef->shnum; i++) {
		err = read_section(ef, i, &s);
		if (err)
			return err;
		if (s.type == SHT_GNU_versym && !versym.type)
			versym = s;
		if ((s.type != SHT_DYNSYM || seen_dyn) &&
		    (s.type != SHT_SYMTAB || seen_sym))
			continue;
		if (s.type == SHT_DYNSYM)
			dyn = i;
		seen_dyn |= s.type == SHT_DYNSYM;
		seen_sym |= s.type == SHT_SYMTAB;
		err = take_table(ef, &s, &t[*n]);
		if (err)
			return err;
		if (s.type == SHT_DYNSYM && versym.type)
			take_versym(ef, &versym, dyn, &t[*n]);
		bytes += t[(*n)++].count * symlen;
	}
	/* The versions may come after their table. */
	for (i = 0; i < *n && versym.type; i++)
		if (!t[i].versym && dyn)
			take_versym(ef, &versym, dyn, &t[i]);
	/* Sizes said rounded up, what may still be read rounded down. */
	mib = (unsigned long long)((bytes + (1u << 20) - 1) >> 20);
	if (bytes > ELFSYM_MAX_TABLE_BYTES)
		return refuse(ef, -EFBIG, "symbol tables of %llu MiB, more than the %llu MiB read",
			      mib, ELFSYM_MAX_TABLE_BYTES >> 20);
	if (bytes > budget)
		return refuse(ef, -ENOSPC, "symbol tables of %llu MiB, more than the %llu MiB this start may still read",
			      mib, (unsigned long long)(budget >> 20));
	return 0;
}

/*
 * The name of a symbol up to its version ('@'), *len bytes, or NULL where
 * it is no name of ours: longer than all of them, or not in its table.
 */
static const char *sym_name(struct elf_file *ef, const struct table *t,
			    uint64_t name, size_t *len)
{
	uint64_t pos = t->str_offset + name, from;
	size_t need;
	char *p, *end;

	if (name >= t->str_size)
		return NULL;
	need = t->str_size - name < ef->maxlen + 1 ? t->str_size - name :
						      ef->maxlen + 1;
	if (pos < ef->win_off || pos + need > ef->win_off + ef->win_len) {
		from = t->str_size <= STR_WHOLE ? t->str_offset : pos;
		ef->win_len = t->str_size <= STR_WHOLE ? t->str_size :
			      t->str_offset + t->str_size - pos < STR_NAME ?
			      t->str_offset + t->str_size - pos : STR_NAME;
		ef->win_off = from;
		if (read_at(ef, ef->win, ef->win_len, from)) {
			ef->win_len = 0;
			return NULL;
		}
	}
	p = ef->win + (pos - ef->win_off);
	for (end = p; end < p + need && *end && *end != '@'; end++)
		;
	if (end == p + need)
		return NULL;
	*len = (size_t)(end - p);
	return p;
}

/*
 * Converts a symbol's address into the file offset of its code, or 0: the
 * kernel takes a uprobe only on bytes the file has, and a function
 * offset past them would fail the whole start of the task.
 */
static uint64_t vaddr_to_offset(const struct elf_file *ef, uint64_t addr)
{
	const struct segment *s;
	uint64_t off;
	size_t i;

	for (i = 0; i < ef->nxseg; i++) {
		s = &ef->xseg[i];
		if (addr < s->vaddr || addr - s->vaddr >= s->filesz)
			continue;
		off = addr - s->vaddr + s->offset;
		return off >= s->offset && off < ef->size ? off : 0;
	}
	return 0;
}

/* One symbol: the offset of each name it is, if it is a defined function. */
static int match_sym(struct elf_file *ef, const struct table *t,
		     const unsigned char *raw, uint16_t versym,
		     const char *const *names, size_t n, uint64_t *offsets)
{
	uint64_t value, name;
	const char *s;
	unsigned char info;
	uint16_t shndx;
	size_t j, len;
	int found = 0;

	if (ef->is64) {
		const Elf64_Sym *sym = (const Elf64_Sym *)raw;

		value = sym->st_value, name = sym->st_name;
		info = sym->st_info, shndx = sym->st_shndx;
	} else {
		const Elf32_Sym *sym = (const Elf32_Sym *)raw;

		value = sym->st_value, name = sym->st_name;
		info = sym->st_info, shndx = sym->st_shndx;
	}
	if (ELF64_ST_TYPE(info) != ef->want || shndx == SHN_UNDEF || !value ||
	    (versym & VERSYM_HIDDEN))
		return 0;
	s = sym_name(ef, t, name, &len);
	if (!s)
		return 0;
	for (j = 0; j < n; j++) {
		if (offsets[j] || ef->lens[j] != len ||
		    memcmp(names[j], s, len))
			continue;
		offsets[j] = ef->want == STT_FUNC ? vaddr_to_offset(ef, value) :
			     value;
		found += offsets[j] != 0;
	}
	return found;
}

/* A table, SYM_CHUNK bytes at a time. */
static int scan_table(struct elf_file *ef, const struct table *t,
		      const char *const *names, size_t n, uint64_t *offsets)
{
	size_t symlen = ef->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	size_t per = SYM_CHUNK / symlen, k, take;
	uint64_t i;
	int found = 0, err;

	for (i = 0; i < t->count; i += take) {
		take = t->count - i < per ? (size_t)(t->count - i) : per;
		err = read_at(ef, ef->chunk, take * symlen,
			      t->offset + i * symlen);
		if (!err && t->versym)
			err = read_at(ef, ef->versyms, take * sizeof(uint16_t),
				      t->versym + i * sizeof(uint16_t));
		if (err)
			return err;
		for (k = 0; k < take; k++)
			found += match_sym(ef, t, ef->chunk + k * symlen,
					   t->versym ? ef->versyms[k] : 0,
					   names, n, offsets);
	}
	return found;
}

static int find_in(struct elf_file *ef, const char *const *names, size_t n,
		   uint64_t *offsets, uint64_t *budget)
{
	size_t symlen, ntables, i;
	struct table t[2];
	int err, found = 0;

	err = read_layout(ef);
	if (!err)
		err = find_tables(ef, t, &ntables, *budget);
	if (err)
		return err;
	symlen = ef->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	for (i = 0; i < ntables; i++)
		*budget -= t[i].count * symlen;
	for (i = 0; i < ntables; i++) {
		err = scan_table(ef, &t[i], names, n, offsets);
		if (err < 0)
			return err;
		found += err;
	}
	return found;
}

static int find_syms(int fd, unsigned char want, const char *const *names,
		     size_t n, uint64_t *found, uint64_t *exec_delta,
		     uint64_t *budget, char *why, size_t len)
{
	struct elf_file *ef;
	struct stat st;
	size_t j;
	int ret;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	ef = calloc(1, sizeof(*ef));
	if (!ef)
		return -ENOMEM;
	ef->lens = calloc(n ? n : 1, sizeof(*ef->lens));
	if (!ef->lens) {
		free(ef);
		return -ENOMEM;
	}
	/* Field by field: with its buffers it is too big for a stack. */
	ef->fd = fd;
	ef->size = (uint64_t)st.st_size;
	ef->why = why;
	ef->why_len = len;
	ef->want = want;
	/* A name longer than a name window is never found: none is. */
	for (j = 0; j < n; j++) {
		ef->lens[j] = strlen(names[j]);
		if (ef->lens[j] > ef->maxlen && ef->lens[j] < STR_NAME)
			ef->maxlen = ef->lens[j];
	}
	memset(found, 0, n * sizeof(*found));
	ret = find_in(ef, names, n, found, budget);
	if (exec_delta)
		*exec_delta = ef->nxseg ? ef->xseg[0].vaddr - ef->xseg[0].offset : 0;
	free(ef->lens);
	free(ef);
	/* A file cut short under us is no ELF file to probe. */
	return ret == -ERANGE || ret == -EIO ? -ENOEXEC : ret;
}

int elfsym_find_funcs(int fd, const char *const *names, size_t n,
		      uint64_t *offsets, uint64_t *budget, char *why,
		      size_t len)
{
	return find_syms(fd, STT_FUNC, names, n, offsets, NULL, budget, why,
			 len);
}

int elfsym_find_data(int fd, const char *const *names, size_t n,
		     uint64_t *addrs, uint64_t *exec_delta, uint64_t *budget,
		     char *why, size_t len)
{
	return find_syms(fd, STT_OBJECT, names, n, addrs, exec_delta, budget,
			 why, len);
}
