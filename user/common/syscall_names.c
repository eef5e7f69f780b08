// SPDX-License-Identifier: MIT
/* Syscall names from <sys/syscall.h>, listed at build time. */
#include <stddef.h>
#include <sys/syscall.h>

#include "syscall_names.h"

/* $(GEN)/syscall_list.h: X(name) for each __NR_name the headers define. */
static const char *const names[] = {
#define X(n) [__NR_##n] = #n,
#include "syscall_list.h"
#undef X
};

const char *syscall_name(long nr)
{
	if (nr < 0 || (size_t)nr >= sizeof(names) / sizeof(names[0]))
		return NULL;
	return names[nr];
}
