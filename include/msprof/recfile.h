/* SPDX-License-Identifier: MIT */
/*
 * Raw data files in a PROF_ directory: a header (magic, version, clock bases)
 * followed by length-prefixed records, so a file cut short by a crash still
 * parses up to its last whole record.  Host byte order.
 */
#ifndef MSPROF_RECFILE_H
#define MSPROF_RECFILE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "msprof/events.h"
#include "msprof/probe_packs.h"

#define MSPROF_REC_MAGIC	"MSPROFRD"
#define MSPROF_REC_VERSION	2

struct msprof_file_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;	/* sizeof this struct when written */
	uint64_t mono_ns;	/* CLOCK_MONOTONIC when the file was created */
	uint64_t real_ns;	/* CLOCK_REALTIME at the same instant */
};

struct msprof_rec_hdr {
	uint16_t type;
	uint16_t size;		/* body bytes that follow */
};

enum msprof_rec_type {
	MSPROF_REC_NAME = 1,	/* struct msprof_name_rec */
	MSPROF_REC_API = 2,	/* struct msprof_api_event */
	MSPROF_REC_IOCTL = 3,	/* struct msprof_ioctl_event */
	MSPROF_REC_DEVTASK = 4,	/* struct msprof_devtask_rec */
	MSPROF_REC_PYSTACK = 5,	/* struct msprof_pystack_event, nframes long */
	MSPROF_REC_PYCODE = 6,	/* struct msprof_pycode_rec */
};

/*
 * Names an API id used by the API records of the same file, and its kept
 * arguments: name, then one (possibly empty) name per argument, each
 * NUL-terminated.
 */
struct msprof_name_rec {
	uint32_t id;
	uint32_t layer;		/* enum msprof_api_layer */
	uint8_t arg_kinds[MSPROF_PROBE_ARGS];	/* enum msprof_arg_kind */
	uint8_t pad[2];
	char names[];
};

/* One task executed on a device, as the device backend saw it. */
struct msprof_devtask_rec {
	uint32_t device;
	uint32_t stream;
	uint32_t task_id;
	uint32_t block_dim;
	uint32_t host_tid;	/* thread that submitted the task */
	uint32_t pad;
	uint64_t submit_ns;	/* CLOCK_MONOTONIC, inside the launching call */
	uint64_t start_ns;
	uint64_t end_ns;
	char name[];		/* kernel or task type, NUL-terminated */
};

/* How msprof found a code object that a stack names. */
enum msprof_pycode_state {
	MSPROF_PYCODE_OK,
	MSPROF_PYCODE_GONE,	/* no code object there any more: unknown */
	MSPROF_PYCODE_UNREAD,	/* its memory could not be read: unknown */
};

/*
 * A code object of a target's CPython, read while it ran: file, name (the
 * qualified name from 3.11) and line table follow, not NUL-terminated.
 * A table longer than MSPROF_PYCODE_TABLE_MAX is not kept (its lines are
 * then the function's first line).
 */
struct msprof_pycode_rec {
	uint64_t code;		/* its address, as the stacks name it */
	uint8_t minor;		/* CPython 3.minor: how the table reads */
	uint8_t state;		/* enum msprof_pycode_state */
	uint16_t file_len;
	uint16_t name_len;
	uint16_t table_len;
	int32_t firstlineno;
	uint32_t code_off;	/* 3.11+: where its instructions start */
	uint32_t firsttraceable;	/* 3.11+: code units before it had not begun */
	uint32_t pad;
	char data[];
};

#define MSPROF_PYCODE_NAME_MAX	1024
#define MSPROF_PYCODE_TABLE_MAX	(32u << 10)

struct recfile;

/* Creates path and writes the header; 0 or -errno (then *out is unset). */
int recfile_create(struct recfile **out, const char *path);
/* The same on fd, opened for writing; fd is the recfile's, even on error. */
int recfile_fdopen(struct recfile **out, int fd);
/* Appends one record whose body is head followed by tail (tail may be NULL). */
int recfile_append(struct recfile *f, uint16_t type, const void *head,
		   size_t head_len, const void *tail, size_t tail_len);
/* Flushes and closes; returns the first error seen while writing. */
int recfile_close(struct recfile *f);

/* Called for each whole record; a non-zero return stops the walk with it. */
typedef int (*recfile_visit_fn)(uint16_t type, const void *body, size_t len,
				void *ctx);

/* Where a walk stopped short, and why. */
struct recfile_stop {
	uint64_t offset;	/* of the header or record that stopped it */
	uint64_t left;		/* bytes of the file from offset on */
	uint64_t need;		/* bytes that record claims, header included */
	uint16_t type;		/* that record's type */
};

/* Longest name blob and device task name the writers produce. */
#define MSPROF_REC_NAMES_MAX	512
#define MSPROF_REC_TASK_NAME_MAX	256
/* Types from here on are no record's: a corrupt header. */
#define MSPROF_REC_TYPE_END	256

/*
 * Reads the data file open as fd from its start: fills hdr (may be NULL)
 * and visits each whole record.  Only a regular file is read, and no
 * further than its size at the call.  -EPROTO: not a data file (bad file
 * header); -EBADMSG: a record runs past the end of the file (cut short by a
 * crash, or a corrupt size); -EILSEQ: a record no writer makes (a size its
 * type cannot have, a type out of range).  The records before were visited
 * then.  Types below MSPROF_REC_TYPE_END not known here are passed on.  stop
 * (may be NULL) says where the walk stopped on those and a visitor's error.
 */
int recfile_read_fd(int fd, struct msprof_file_header *hdr,
		    recfile_visit_fn visit, void *ctx, struct recfile_stop *stop);
/* One line on why a read stopped: "offset 12: record of ... bytes ...". */
void recfile_strerror(char *buf, size_t len, int err,
		      const struct recfile_stop *stop);

#endif
