/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_SYSCALL_NAMES_H
#define MSPROF_SYSCALL_NAMES_H

/*
 * The build's architecture's syscall names, by number, from the libc
 * headers it builds against (<sys/syscall.h>): what the kernel's native
 * table calls each.  NULL for a number it has no name for.
 */
const char *syscall_name(long nr);

#endif
