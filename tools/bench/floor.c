// SPDX-License-Identifier: MIT
/*
 * floor LIB FUNC PID: holds floor.bpf.c's empty uprobe and uretprobe on
 * LIB's FUNC in PID until SIGTERM or SIGINT (IDLE_S seconds at most), so
 * make bench can time the probed call's floor: the traps alone.
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

static int attach(struct bpf_program *prog, const char *lib, const char *func,
		  int pid, bool retprobe, struct bpf_link **link)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .func_name = func,
		    .retprobe = retprobe);

	*link = bpf_program__attach_uprobe_opts(prog, pid, lib, 0, &opts);
	return *link ? 0 : -errno;
}

int main(int argc, char **argv)
{
	struct timespec idle = { .tv_sec = IDLE_S };
	struct bpf_link *entry = NULL, *ret = NULL;
	struct floor_bpf *skel;
	sigset_t set;
	char *end;
	long pid;
	int err;

	if (argc != 4 || (pid = strtol(argv[3], &end, 10)) <= 0 || *end) {
		fprintf(stderr, "usage: floor LIB FUNC PID\n");
		return 2;
	}
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
	err = attach(skel->progs.floor_entry, argv[1], argv[2], pid, false,
		     &entry);
	if (!err)
		err = attach(skel->progs.floor_return, argv[1], argv[2], pid,
			     true, &ret);
	if (err) {
		fprintf(stderr, "floor: probing %s:%s in pid %ld: %s\n",
			argv[1], argv[2], pid, strerror(-err));
	} else {
		printf("floor attached\n");
		fflush(stdout);
		while (sigtimedwait(&set, NULL, &idle) < 0 && errno == EINTR)
			;
	}
	bpf_link__destroy(ret);
	bpf_link__destroy(entry);
	floor_bpf__destroy(skel);
	return err ? 1 : 0;
}
