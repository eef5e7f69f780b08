// SPDX-License-Identifier: MIT
/*
 * floor LIB FUNC PID: holds floor.bpf.c's empty uprobe and uretprobe on
 * LIB's FUNC in PID, so make bench can time the probed call's floor: the
 * traps alone.
 * floor --syscalls=raw|ioctl: holds its empty syscall hooks instead, the
 * raw sys_enter/sys_exit tracepoints or syscalls/sys_{enter,exit}_ioctl
 * (these need tracefs mounted), so make bench can time what each way of
 * seeing ioctls costs every other process's syscalls.
 * Either way until SIGTERM or SIGINT, IDLE_S seconds at most.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "floor.skel.h"

#define IDLE_S	600

static int attach_uprobe(struct bpf_program *prog, const char *lib,
			 const char *func, int pid, bool retprobe,
			 struct bpf_link **link)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .func_name = func,
		    .retprobe = retprobe);

	*link = bpf_program__attach_uprobe_opts(prog, pid, lib, 0, &opts);
	return *link ? 0 : -errno;
}

static int attach_prog(struct bpf_program *prog, struct bpf_link **link)
{
	*link = bpf_program__attach(prog);
	return *link ? 0 : -errno;
}

/* The hooks the arguments name, into links[0] and links[1]. */
static int attach(struct floor_bpf *skel, int argc, char **argv,
		  struct bpf_link **links)
{
	char *end;
	long pid;
	int err;

	if (argc == 2 && !strcmp(argv[1], "--syscalls=raw")) {
		err = attach_prog(skel->progs.floor_sys_enter, &links[0]);
		return err ?: attach_prog(skel->progs.floor_sys_exit, &links[1]);
	}
	if (argc == 2 && !strcmp(argv[1], "--syscalls=ioctl")) {
		err = attach_prog(skel->progs.floor_ioctl_enter, &links[0]);
		return err ?: attach_prog(skel->progs.floor_ioctl_exit, &links[1]);
	}
	if (argc != 4 || (pid = strtol(argv[3], &end, 10)) <= 0 || *end)
		return -EINVAL;
	err = attach_uprobe(skel->progs.floor_entry, argv[1], argv[2], pid,
			    false, &links[0]);
	return err ?: attach_uprobe(skel->progs.floor_return, argv[1], argv[2],
				    pid, true, &links[1]);
}

int main(int argc, char **argv)
{
	struct timespec idle = { .tv_sec = IDLE_S };
	struct bpf_link *links[2] = { NULL, NULL };
	struct floor_bpf *skel;
	sigset_t set;
	int err;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	skel = floor_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "floor: loading the BPF object: %s\n",
			strerror(errno));
		return 1;
	}
	err = attach(skel, argc, argv, links);
	if (err == -EINVAL) {
		fprintf(stderr, "usage: floor LIB FUNC PID | floor --syscalls=raw|ioctl\n");
	} else if (err && argc == 2) {
		fprintf(stderr, "floor: attaching the %s hooks: %s\n",
			argv[1] + 2, strerror(-err));
	} else if (err) {
		fprintf(stderr, "floor: probing %s:%s in pid %s: %s\n",
			argv[1], argv[2], argv[3], strerror(-err));
	} else {
		printf("floor attached\n");
		fflush(stdout);
		while (sigtimedwait(&set, NULL, &idle) < 0 && errno == EINTR)
			;
	}
	bpf_link__destroy(links[1]);
	bpf_link__destroy(links[0]);
	floor_bpf__destroy(skel);
	return err == -EINVAL ? 2 : err ? 1 : 0;
}
