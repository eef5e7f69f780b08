/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PROFDATA_H
#define MSPROF_PROFDATA_H

#include <stddef.h>
#include <stdint.h>

#include "msprof/recfile.h"

struct devtask {
	struct msprof_devtask_rec rec;
	char name[64];
};

/* What a name record says of an API id. */
struct api_desc {
	char *name;		/* NULL: the id was never named */
	uint32_t layer;		/* enum msprof_api_layer */
	uint8_t kinds[MSPROF_PROBE_ARGS];	/* enum msprof_arg_kind */
	const char *args[MSPROF_PROBE_ARGS];	/* inside name's allocation */
};

/* A PROF_ directory read back into memory. */
struct profdata {
	int pid;
	char comm[64];
	unsigned long long lost_events;	/* dropped by the kernel side */
	uint64_t end_mono_ns;		/* when the window closed */
	struct api_desc apis_desc[MSPROF_MAX_APIS];
	struct msprof_api_event *apis;	/* sorted by ns_tid, then start */
	size_t napis, cap_apis;
	struct msprof_ioctl_payload_event *ioctls;	/* payload_len 0: none */
	size_t nioctls, cap_ioctls;
	struct devtask *tasks;
	size_t ntasks, cap_tasks;
};

int profdata_load(struct profdata *p, const char *dir);
void profdata_free(struct profdata *p);
/*
 * The innermost API call on the thread the task knows as tid (its own
 * namespace's view, as device records name it) whose span holds ns.
 */
const struct msprof_api_event *profdata_call_at(const struct profdata *p,
						uint32_t tid, uint64_t ns);

#endif
