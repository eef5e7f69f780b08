// SPDX-License-Identifier: MIT
/*
 * libbench_call.so: the one function make bench probes.  It does almost
 * nothing, so that what a call costs under a probe is the probe's cost.
 */
__attribute__((noinline, visibility("default"))) int bench_call(int x)
{
	/* Keeps the call a call, and its body a body, at any -O. */
	__asm__ volatile("" : "+r"(x) : : "memory");
	return x + 1;
}
