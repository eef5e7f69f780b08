/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PROBES_H
#define MSPROF_PROBES_H

#include <stddef.h>

#include "msprof/recfile.h"

/* One runtime API function to probe; its index is its api_id. */
struct probe_api {
	const char *name;
	enum msprof_api_layer layer;
};

extern const struct probe_api probe_apis[];
extern const size_t probe_napis;

/*
 * Fills names[] (probe_napis entries) for elf_find_funcs().
 */
void probe_names(const char **names);

/*
 * The device node whose ioctls are kept for a target: npusim's
 * NPUSIM_DEVICE from the target's environment, else its default.
 */
int probe_device_node(int host_pid, char *path, size_t len);

#endif
