// SPDX-License-Identifier: MIT
/* Syscall numbers to names, from the build's own headers. */
#include <stddef.h>
#include <sys/syscall.h>

#include "syscall_names.h"

static const struct {
	unsigned long nr;
	const char *name;
} syscalls[] = {
#define SYSCALL(nr, name) { nr, name },
#include "gen_syscall_names.h"
#undef SYSCALL
};

/* Looked up once a number and window (the collector keeps which it named). */
const char *syscall_name(unsigned long nr)
{
	size_t i;

	for (i = 0; i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
		if (syscalls[i].nr == nr)
			return syscalls[i].name;
	return NULL;
}
