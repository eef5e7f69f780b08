/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_UPROBE_MULTI_H
#define MSPROF_UPROBE_MULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The attach type of uprobe_multi programs (kernel 6.6+). */
#define MSPROF_TRACE_UPROBE_MULTI 48

/*
 * One link for many uprobes (or uretprobes, with ret) in one file, filtered
 * to pid, each with its cookie.  Returns the link's fd or -errno.
 */
int uprobe_multi_attach(int prog_fd, const char *path, const uint64_t *offsets,
			const uint64_t *cookies, size_t cnt, int pid, bool ret);

/*
 * Whether the kernel makes uprobe_multi links.  Kernels before 6.6 accept
 * the attach type when loading and refuse only the link.
 */
bool uprobe_multi_supported(void);

#endif
