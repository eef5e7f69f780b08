// SPDX-License-Identifier: MIT
/* The thread-state hooks' part of the BPF object (bpf/sched.h). */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "msprof.skel.h"
#include "sched_hooks.h"

/* Far above any THREAD_SIZE: a larger offset is no registers' place. */
#define REGS_OFF_MAX (1u << 20)

void sched_hooks_configure(struct msprof_bpf *skel, bool on)
{
	bpf_program__set_autoload(skel->progs.sched_switch, on);
	bpf_program__set_autoload(skel->progs.sched_waking, on);
	bpf_program__set_autoload(skel->progs.sched_wakeup_new, on);
	bpf_program__set_autoload(skel->progs.learn_regs, on);
	skel->rodata->learn_tgid = (__u32)getpid();
}

int sched_hooks_learn(struct msprof_bpf *skel)
{
	struct bpf_link *l = bpf_program__attach(skel->progs.learn_regs);

	if (!l)
		return -errno;
	syscall(SYS_getppid);
	bpf_link__destroy(l);
	if (skel->bss->regs_off >= REGS_OFF_MAX)
		skel->bss->regs_off = 0;
	return 0;
}

int sched_hooks_attach(struct msprof_bpf *skel, struct link_set *links)
{
	int err = link_set_keep(links, bpf_program__attach(skel->progs.sched_switch));

	if (!err)
		err = link_set_keep(links, bpf_program__attach(skel->progs.sched_waking));
	if (!err)
		err = link_set_keep(links,
				    bpf_program__attach(skel->progs.sched_wakeup_new));
	return err;
}

void sched_hooks_mark(struct msprof_bpf *skel, uint32_t tgid)
{
	size_t n = sizeof(skel->bss->sched_slots);

	__atomic_store_n(&skel->bss->sched_slots[tgid & (n - 1)], 1,
			 __ATOMIC_RELAXED);
}

int sched_hooks_mark_all(struct msprof_bpf *skel)
{
	int fd = bpf_map__fd(skel->maps.targets);
	__u32 key, next;
	int err;

	for (err = bpf_map_get_next_key(fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(fd, &key, &next)) {
		key = next;
		sched_hooks_mark(skel, key);
	}
	return errno == ENOENT ? 0 : -errno;
}

void sched_hooks_clear(struct msprof_bpf *skel)
{
	memset(skel->bss->sched_slots, 0, sizeof(skel->bss->sched_slots));
}
