/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_ELFSYM_H
#define MSPROF_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

/*
 * For each of the n names, sets offsets[i] to the file offset of the
 * function of that name that path defines (what a uprobe attaches to), or
 * leaves it 0.  Version suffixes ("cudaMalloc@@libcudart.so.13") are
 * ignored.  Returns how many were found, or -errno.
 */
int elfsym_find_funcs(const char *path, const char *const *names, size_t n,
		   uint64_t *offsets);

#endif
