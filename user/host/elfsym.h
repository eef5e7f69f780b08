/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_ELFSYM_H
#define MSPROF_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

/*
 * Bounds on what a file can make us read (the file is a task's: its sizes
 * are claims, and a sparse file claims gigabytes for nothing).  Real
 * libraries stay far below them: Debian 12's libLLVM-15.so.1 (112 MiB)
 * has 31 sections, 9 program headers and 1.1 MiB of .dynsym; libc.so.6
 * 64 sections.  Memory does not follow them: the tables are read through
 * one chunk buffer, never loaded whole.
 */
#define ELFSYM_MAX_SECTIONS 4096		/* section headers looked at */
#define ELFSYM_MAX_SEGMENTS 256			/* program headers */
/* .dynsym and .symtab together */
#define ELFSYM_MAX_TABLE_BYTES (64ull << 20)

/*
 * For each of the n names, sets offsets[i] to the file offset of the
 * function of that name that the ELF file open at fd defines (what a
 * uprobe attaches to), or leaves it 0.  Version suffixes
 * ("cudaMalloc@@libcudart.so.13") are ignored.  Only the first .dynsym and
 * the first .symtab are read (an object has one of each).  Their sizes
 * count against *budget, which shrinks by what was read.  Returns how many
 * were found; -ENOEXEC for what is no ELF file of this machine's byte
 * order; -EFBIG past one of the bounds above, -ENOSPC past *budget and
 * -EINVAL for a table that is malformed, each with why[len] saying so (not
 * touched otherwise); or another -errno of a read.
 */
int elfsym_find_funcs(int fd, const char *const *names, size_t n,
		      uint64_t *offsets, uint64_t *budget, char *why,
		      size_t len);

/*
 * The same for data objects: addrs[i] is the object's address as the file
 * links it, *exec_delta the first executable segment's address less its
 * file offset, which with where that segment is mapped gives the load
 * bias.
 */
int elfsym_find_data(int fd, const char *const *names, size_t n,
		     uint64_t *addrs, uint64_t *exec_delta, uint64_t *budget,
		     char *why, size_t len);

#endif
