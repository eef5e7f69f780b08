/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_SYSCALL_NAMES_H
#define MSPROF_SYSCALL_NAMES_H

/*
 * The name of syscall nr on the architecture msprof was built for (its
 * libc headers'), or NULL for a number they do not name.
 */
const char *syscall_name(unsigned long nr);

#endif
