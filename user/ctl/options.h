/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_OPTIONS_H
#define MSPROF_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "msprof/pystack.h"
#include "common/hostsys.h"

/* Python frames kept per call without --python-depth. */
#define MSPROF_PYTHON_DEPTH 32

#define MSPROF_MAX_PIDS 64

enum msprof_mode {
	MSPROF_MODE_NONE,
	MSPROF_MODE_LAUNCH,	/* --dynamic=on <app> */
	MSPROF_MODE_ATTACH,	/* --dynamic=on --pid=... */
	MSPROF_MODE_EXPORT,	/* --export=on */
	MSPROF_MODE_QUERY,	/* --query=on */
	MSPROF_MODE_ANALYZE,	/* --analyze=on */
	MSPROF_MODE_LIST,	/* --list */
	MSPROF_MODE_COLLECT,	/* --collect=<dir> <src>... */
	MSPROF_MODE_HELP,
	MSPROF_MODE_VERSION,
};

struct msprof_opts {
	enum msprof_mode mode;
	const char *output;		/* default "." */
	int pids[MSPROF_MAX_PIDS];
	int npids;
	int job;			/* --job: a launcher whose ranks are taken, 0 if none */
	unsigned long long job_start;	/* and when it started, as its ranks were taken */
	char **app_argv;		/* NULL-terminated, launch mode */
	char *app_storage;		/* --application string, split in place */
	size_t ringbuf_bytes;		/* --buffer-size */
	unsigned int idle_timeout_s;	/* --idle-timeout */
	bool host_only;			/* --host-only: no agent needed */
	bool ioctl_payload;		/* --ioctl-payload */
	bool follow_children;		/* --follow-children (launch mode: on) */
	const char *uprobes;		/* --uprobe=<lib>:<func>[,...] */
	bool db;			/* --type=db: export the SQLite db too */
	const char *control;		/* --control=<path>: commands from a FIFO */
	const char *collect;		/* --collect=<dir>: app_argv, the sources */
	/* msprof's collection switches */
	bool ascendcl;
	bool runtime_api;
	bool hccl;
	bool msproftx;
	bool task_time;
	bool python_stack;		/* --python-stack */
	unsigned int python_depth;	/* --python-depth */
	const char *prof_level;		/* --task-time as a level: l0, l1 (on) or off */
	struct hostsys_conf hostsys;	/* --host-sys, --host-sys-usage and theirs */
};

/*
 * Parses the command line.  On bad input returns -EINVAL with a one-line
 * explanation in err.  Free with opts_free().
 */
int opts_parse(struct msprof_opts *o, int argc, char **argv, char *err,
	       size_t errlen);
void opts_free(struct msprof_opts *o);
/*
 * A ring buffer's size for at least bytes: the kernel wants a power of two
 * that is a whole number of pages (page, itself a power of two: 4 KiB, or
 * 16 or 64 KiB on some arm64 kernels).
 */
size_t opts_ringbuf_size(unsigned long long bytes, size_t page);
/* The API layers the switches ask for, as a mask of 1 << msprof_api_layer. */
unsigned int opts_layers(const struct msprof_opts *o);
void opts_usage(FILE *fp);
/* The i-th long option the parser accepts (without "--"), NULL past the last. */
const char *opts_name(size_t i);

#endif
