/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PROFDATA_H
#define MSPROF_PROFDATA_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msprof/recfile.h"
#include "profmeta.h"
#include "strtab.h"

/* What a name record says of an API id. */
struct api_desc {
	char *name;		/* NULL: the id was never named */
	uint32_t layer;		/* enum msprof_api_layer */
	uint8_t kinds[MSPROF_PROBE_ARGS];	/* enum msprof_arg_kind */
	const char *args[MSPROF_PROBE_ARGS];	/* inside name's allocation */
};

/*
 * An API call as the index keeps it: enough to find the call a device task
 * came from.  Its connection id is its place in profdata.calls, plus 1.
 */
struct profcall {
	uint64_t start_ns;
	uint64_t end_ns;
	uint32_t ns_tid;	/* as the task sees itself, as device records do */
	uint16_t api_id;
	uint16_t depth;
};

/* One device task; its name is interned in profdata.names. */
struct devtask {
	uint32_t device;
	uint32_t stream;
	uint32_t task_id;
	uint32_t block_dim;
	uint32_t host_tid;	/* the task's view */
	uint32_t name;		/* id in profdata.names */
	uint64_t submit_ns;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t conn;		/* the launching call's connection id; 0: none seen */
};

/* A data file that could not be read whole. */
struct profdata_problem {
	char file[NAME_MAX + 32];	/* relative to the PROF_ directory */
	int err;		/* as recfile_read_fd() or safe_open_beneath() */
	struct recfile_stop stop;
};

#define PROFDATA_MAX_PROBLEMS 8

/*
 * A PROF_ directory as the exporters read it: its metadata, an index of
 * its API calls and its device tasks in memory; host records themselves
 * are read again from the file each time they are walked, so a window of
 * millions of calls is never held whole.
 */
struct profdata {
	struct profmeta meta;
	uint64_t end_mono_ns;	/* the window's end, or its last record */
	/* Data files read only in part; nproblems may exceed what is kept. */
	struct profdata_problem problems[PROFDATA_MAX_PROBLEMS];
	unsigned int nproblems;
	struct api_desc apis_desc[MSPROF_MAX_APIS];
	struct profcall *calls;	/* by ns_tid, then start, then depth */
	size_t ncalls;
	uint32_t *tids;		/* threads with host records (msprof's view), ascending */
	size_t ntids;
	struct devtask *tasks;	/* by device, then start */
	size_t ntasks;
	struct strtab names;	/* device task names */
	int dirfd;		/* the PROF_ directory, for the walks */
	size_t cap_calls, cap_tids, cap_tasks;
};

/*
 * Reads the PROF_ directory open as dirfd (which stays the caller's).  A
 * data file that cannot be read whole is a problem kept in p, not an
 * error: what it held up to there is loaded.  A window without info.json
 * (a crash) or still "collecting" loads as incomplete.  -ENOENT: neither
 * info.json nor start_info (not a window); other errors concern the
 * metadata (profdata_strerror).  On error p holds nothing to free.
 */
int profdata_load_at(struct profdata *p, int dirfd);
/* The same for the directory at path (not followed if a link). */
int profdata_load(struct profdata *p, const char *dir);
/* What an error of profdata_load_at() means, for a message. */
void profdata_strerror(char *buf, size_t len, int err);
void profdata_free(struct profdata *p);

/* Sorts v and drops repeats; how many are left. */
size_t profdata_sort_unique(uint32_t *v, size_t n);
/* The description of an API id; NULL if it was never named. */
const struct api_desc *profdata_desc(const struct profdata *p, uint32_t api_id);
/* The call of a connection id; NULL for 0 or one out of range. */
const struct profcall *profdata_call(const struct profdata *p, uint64_t conn);
/*
 * The connection id of the innermost API call on the thread the task knows
 * as tid whose span holds ns; 0 if none.
 */
uint64_t profdata_conn_at(const struct profdata *p, uint32_t tid, uint64_t ns);

/*
 * Walks the host records in file order, each loaded one handed to api (with
 * its connection id) or ioctl (payload_len 0: none kept); either may be
 * NULL.  A non-zero return of theirs ends the walk with it; reading stops
 * where the load found the file's end.
 */
typedef int (*profdata_api_fn)(const struct msprof_api_event *e, uint64_t conn,
			       void *ctx);
typedef int (*profdata_ioctl_fn)(const struct msprof_ioctl_payload_event *e,
				 void *ctx);
int profdata_each_host(const struct profdata *p, profdata_api_fn api,
		       profdata_ioctl_fn ioctl, void *ctx);

#endif
