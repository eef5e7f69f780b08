// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The floor make bench measures against: an empty uprobe and uretprobe, so
 * a probed call pays the traps and nothing else.
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

char LICENSE[] SEC("license") = "Dual MIT/GPL";
