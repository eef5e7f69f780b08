// SPDX-License-Identifier: MIT
/*
 * A function no uprobe can go on (x86: its first instruction is int3,
 * which the kernel refuses to single-step), in a process that waits to be
 * probed: says "unprobeable pid N", then sleeps until killed (120 s at
 * most).  Elsewhere badfn is a plain function and the test skips.
 */
#include <stdio.h>
#include <unistd.h>

#ifdef __x86_64__
__asm__(".text\n.globl badfn\n.type badfn, @function\nbadfn:\n"
	"\t.byte 0xcc\n\tret\n.size badfn, .-badfn\n");
#else
void badfn(void)
{
}
#endif
void badfn(void);

int main(void)
{
	printf("unprobeable pid %d\n", (int)getpid());
	fflush(stdout);
	/* Never true: badfn is here to be probed, not called. */
	if (getppid() == 0)
		badfn();
	sleep(120);
	return 0;
}
