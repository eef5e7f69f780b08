/* SPDX-License-Identifier: MIT */
/*
 * What every device backend needs to keep a window's records and write
 * them out: a bounded record buffer, the per-device task files and the
 * backend's stats file.
 */
#ifndef MSPROF_AGENT_DEVDATA_H
#define MSPROF_AGENT_DEVDATA_H

#include <stddef.h>
#include <stdint.h>

#include "msprof/recfile.h"

#pragma GCC visibility push(hidden)

/* Chunks are allocated as records arrive, so a quiet window costs little. */
#define REC_BUF_CHUNK	(1u << 12)
#define REC_BUF_MAX	(1u << 20)
#define REC_BUF_CHUNKS	(REC_BUF_MAX / REC_BUF_CHUNK)

/* Up to REC_BUF_MAX records of one fixed size; not locked. */
struct rec_buf {
	void *chunk[REC_BUF_CHUNKS];
	size_t size;		/* bytes per record */
	size_t max;		/* records it takes, at most REC_BUF_MAX */
	size_t nr;
	uint64_t lost;		/* records that found the buffer full */
};

/* An empty buffer of up to REC_BUF_MAX size-byte records; allocates nothing. */
void devdata_rec_buf_init(struct rec_buf *b, size_t size);
/* The same, for at most max records (up to REC_BUF_MAX). */
void devdata_rec_buf_init_max(struct rec_buf *b, size_t size, size_t max);
/* Room for one more record, or NULL (counted as lost) when full. */
void *devdata_rec_buf_slot(struct rec_buf *b);
void *devdata_rec_buf_at(const struct rec_buf *b, size_t i);
/* Frees every record; b stays usable for records of the same size and max. */
void devdata_rec_buf_free(struct rec_buf *b);

/* The task_time.data files of one window, each opened on first use. */
struct dev_files {
	const char *dir;
	struct dev_file *v;
	size_t nr;
};

/*
 * Appends one MSPROF_REC_DEVTASK to dir/device_<rec->device>/data/
 * task_time.data.  0 or -errno.
 */
int devdata_files_append(struct dev_files *df,
		     const struct msprof_devtask_rec *rec, const char *name);
/* Closes every file; the first error seen while writing them, or 0. */
int devdata_files_close(struct dev_files *df);

/*
 * Writes dir/agent_stats_<backend>.json: {"backend":"<backend>",<fields>},
 * one file per backend so that two backends in one task never clash.
 */
int devdata_stats_write(const char *dir, const char *backend,
		      const char *fields_fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The PROF_ directory a CANN runtime makes under result_dir on START:
 * "<result_dir>/PROF_000001_<local YYYYMMDDhhmmssmmm>_<8-digit pid><8
 * letters A-R>", named now.  0 or -ENAMETOOLONG.
 */
int devdata_run_dir_name(const char *result_dir, char *buf, size_t len);

#pragma GCC visibility pop

#endif
