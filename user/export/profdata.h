/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PROFDATA_H
#define MSPROF_PROFDATA_H

#include <limits.h>
#include <stdbool.h>
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

/* A data file that could not be read whole. */
struct profdata_problem {
	char file[NAME_MAX + 32];	/* relative to the PROF_ directory */
	int err;		/* as recfile_read_fd() or open_file_beneath() */
	struct recfile_stop stop;
};

#define PROFDATA_MAX_PROBLEMS 8

/* A PROF_ directory read back into memory. */
struct profdata {
	int pid;
	char comm[64];
	unsigned long long lost_events;	/* dropped by the kernel side */
	uint64_t end_mono_ns;		/* when the window closed, or its last record */
	bool incomplete;		/* not closed by a stop */
	char incomplete_reason[448];
	/* Data files read only in part; nproblems may exceed what is kept. */
	struct profdata_problem problems[PROFDATA_MAX_PROBLEMS];
	unsigned int nproblems;
	struct api_desc apis_desc[MSPROF_MAX_APIS];
	struct msprof_api_event *apis;	/* sorted by ns_tid, then start */
	size_t napis, cap_apis;
	struct msprof_ioctl_payload_event *ioctls;	/* payload_len 0: none */
	size_t nioctls, cap_ioctls;
	struct devtask *tasks;
	size_t ntasks, cap_tasks;
	uint64_t last_ns;		/* the latest time any record holds */
};

/*
 * Reads the PROF_ directory open as dirfd.  A data file that cannot be read
 * whole is a problem kept in p, not an error: what it held up to there is
 * loaded.  A window without info.json (a crash) or still "collecting" loads
 * as incomplete.  -ENOENT: neither info.json nor start_info (not a window);
 * other errors concern info.json.  On error p holds nothing to free.
 */
int profdata_load_at(struct profdata *p, int dirfd);
/* The same for the directory at path (not followed if a link). */
int profdata_load(struct profdata *p, const char *dir);
/* What an error of profdata_load_at() means, for a message. */
void profdata_strerror(char *buf, size_t len, int err);
void profdata_free(struct profdata *p);
/*
 * The innermost API call on the thread the task knows as tid (its own
 * namespace's view, as device records name it) whose span holds ns.
 */
const struct msprof_api_event *profdata_call_at(const struct profdata *p,
						uint32_t tid, uint64_t ns);

#endif
