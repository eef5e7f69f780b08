/* SPDX-License-Identifier: MIT */
/* Record files the unit tests write, and read back as the exporter does. */
#ifndef MSPROF_UNIT_RECFILE_FIXTURE_H
#define MSPROF_UNIT_RECFILE_FIXTURE_H

#include <stdint.h>

#include "msprof/recfile.h"

/* What unit_count_recs saw. */
struct unit_recs_seen {
	int names, apis, tasks;
	char last_name[64];
	uint64_t last_end;
};

/* A visitor counting into a struct unit_recs_seen. */
int unit_count_recs(uint16_t type, const void *body, size_t len, void *ctx);
/* path: a new record file of one name record ("aclrtMalloc") and napis APIs. */
void unit_write_sample(const char *path, int napis);
/*
 * path read as the exporter reads a data file: opened without following a
 * link or blocking on a FIFO, then walked from its start.
 */
int unit_read_path(const char *path, struct msprof_file_header *hdr,
		   recfile_visit_fn visit, void *ctx);

#endif
