// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The floors make bench measures against: empty programs, so that what is
 * timed is the cost of being hooked and nothing else.  An empty uprobe and
 * uretprobe for a probed call; for other processes' syscalls, the two ways
 * to see ioctls: the raw sys_enter/sys_exit tracepoints msprof uses, and
 * the per-syscall ones, which run for ioctls only.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("uprobe")
int floor_entry(void *ctx)
{
	return 0;
}

SEC("uretprobe")
int floor_return(void *ctx)
{
	return 0;
}

SEC("tp_btf/sys_enter")
int floor_sys_enter(void *ctx)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int floor_sys_exit(void *ctx)
{
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_ioctl")
int floor_ioctl_enter(void *ctx)
{
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_ioctl")
int floor_ioctl_exit(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
