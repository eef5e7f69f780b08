/* SPDX-License-Identifier: MIT */
/* A target's probes attached: the tracer's part of arming it for a window. */
#ifndef MSPROF_ATTACH_H
#define MSPROF_ATTACH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "probes.h"

struct link_set;
struct msprof_bpf;
struct symcache;

/* Files of a target not read for their symbols, for the caller's one line. */
struct attach_refused {
	char path[PATH_MAX];	/* the first, as the task names it ("": none) */
	char why[160];		/* what it claims past which bound */
	unsigned int others;	/* how many more were refused */
};

/* What attaching needs of the tracer. */
struct attach_conf {
	struct msprof_bpf *skel;
	bool multi;		/* uprobe_multi links */
	bool cookies;		/* else functions are told apart by address */
	struct symcache *syms;	/* of the probe set, made for it */
	struct link_set *links;	/* where the links go, for the detach */
};

/*
 * Entry/return probes on every function of ps that host_pid maps, as
 * tracer_arm_target() says (ps->n > 0): attached[i] whether function i
 * was, lib[lib_len] the library the kernel refused probes in on failure,
 * *refused the files not read.
 */
int attach_probes(const struct attach_conf *c, int host_pid,
		  const struct probe_set *ps, bool *attached, char *lib,
		  size_t lib_len, struct attach_refused *refused);

#endif
