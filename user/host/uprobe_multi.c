// SPDX-License-Identifier: MIT
/*
 * uprobe_multi links through the bpf() syscall: Debian's libbpf 1.1 has no
 * API for them, but they matter here.  Detaching a uprobe waits for the
 * kernel to sync (~35 ms in a VM), once per perf-event link but once per
 * uprobe_multi link, so stop costs two syncs per library instead of two per
 * probed function.
 */
#include <errno.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uprobe_multi.h"

/* The kernel's link_create.uprobe_multi layout, absent from 6.1 headers. */
struct uprobe_multi_link_create {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__u64 path;
	__u64 offsets;
	__u64 ref_ctr_offsets;
	__u64 cookies;
	__u32 cnt;
	__u32 multi_flags;
	__u32 pid;
};

#define UPROBE_MULTI_RETURN 1u

_Static_assert(sizeof(struct uprobe_multi_link_create) <= sizeof(union bpf_attr),
	       "the attr must fit the kernel's union");

int uprobe_multi_attach(int prog_fd, const char *path, const uint64_t *offsets,
			const uint64_t *cookies, size_t cnt, int pid, bool ret)
{
	union bpf_attr attr;
	struct uprobe_multi_link_create *lc = (void *)&attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	lc->prog_fd = (__u32)prog_fd;
	lc->attach_type = MSPROF_TRACE_UPROBE_MULTI;
	lc->path = (__u64)(unsigned long)path;
	lc->offsets = (__u64)(unsigned long)offsets;
	lc->cookies = (__u64)(unsigned long)cookies;
	lc->cnt = (__u32)cnt;
	lc->multi_flags = ret ? UPROBE_MULTI_RETURN : 0;
	lc->pid = (__u32)pid;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : (int)fd;
}

bool uprobe_multi_supported(void)
{
	/* r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = MSPROF_TRACE_UPROBE_MULTI);
	const uint64_t offset = 0;
	int prog, link;

	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 2, &opts);
	if (prog < 0)
		return false;
	/* "/" is no regular file: a kernel that knows the link says EBADF. */
	link = uprobe_multi_attach(prog, "/", &offset, NULL, 1, 0, false);
	close(prog);
	if (link >= 0)
		close(link);
	return link >= 0 || link == -EBADF;
}
