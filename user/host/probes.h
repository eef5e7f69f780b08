/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PROBES_H
#define MSPROF_PROBES_H

#include <stddef.h>
#include <sys/types.h>

#include "msprof/probe_packs.h"

/* One function to probe in this session; its index is its API id. */
struct probe {
	const char *name;
	enum msprof_api_layer layer;
	const struct msprof_probe_arg *args;	/* MSPROF_PROBE_ARGS entries */
	const char *lib;	/* --uprobe: only in files whose name has this */
	/* A pack's (lib NULL): bit i, in msprof_probe_packs[i]'s libraries. */
	unsigned int packs;
};

/* The functions of the enabled layers, plus the user's own. */
struct probe_set {
	struct probe *v;
	size_t n;
	char *storage;		/* the --uprobe text, split in place */
};

/*
 * Builds the set from the packs' layers in the mask (1 << layer) and the
 * --uprobe list ("<lib>:<func>[,...]" as the option parser checked it, or
 * NULL).  -EINVAL with a line in err when the functions are too many.
 */
int probe_set_build(struct probe_set *ps, unsigned int layers,
		    const char *uprobes, char *err, size_t len);
void probe_set_free(struct probe_set *ps);
/*
 * Whether a function of the set may be probed in the library at path: a
 * --uprobe one in a file whose name holds its <lib>, a pack's in a file
 * that is one of the libraries of a pack that has it (or in the task's
 * main program: the caller's to know, see tracer_arm_target).
 */
int probe_in_library(const struct probe *p, const char *path);
/* The first file host_pid maps that p may be probed in; -ENOENT if none. */
int probe_find_library(int host_pid, const struct probe *p, char *path,
		       size_t len);

/*
 * Calls fn with the device number of each driver device node of every
 * pack the task maps a library of: the character devices its list names
 * (or the one path the pack's device_env in the task's environment gives),
 * looked up inside the task's root.  -E2BIG past PROBE_MAX_NODES.
 */
#define PROBE_MAX_NODES 256
typedef int (*probe_device_fn)(dev_t rdev, void *ctx);
int probe_devices(int host_pid, probe_device_fn fn, void *ctx);

#endif
