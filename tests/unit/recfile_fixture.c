// SPDX-License-Identifier: MIT
/* Record files the unit tests write, and read back as the exporter does. */
#include <stdio.h>
#include <unistd.h>

#include "common/safe_open.h"
#include "recfile_fixture.h"
#include "unit.h"

int unit_read_path(const char *path, struct msprof_file_header *hdr,
		   recfile_visit_fn visit, void *ctx)
{
	struct stat st;
	int fd = safe_open_nofollow(path, &st);
	int err;

	if (fd < 0)
		return fd;
	err = recfile_read_fd(fd, hdr, visit, ctx, NULL);
	close(fd);
	return err;
}

int unit_count_recs(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct unit_recs_seen *s = ctx;

	if (type == MSPROF_REC_NAME) {
		s->names++;
		snprintf(s->last_name, sizeof(s->last_name), "%s",
			 ((const struct msprof_name_rec *)body)->names);
	} else if (type == MSPROF_REC_API && len == sizeof(struct msprof_api_event)) {
		s->apis++;
		s->last_end = ((const struct msprof_api_event *)body)->end_ns;
	} else if (type == MSPROF_REC_DEVTASK) {
		s->tasks++;
	}
	return 0;
}

void unit_write_sample(const char *path, int napis)
{
	struct msprof_name_rec nr = { .id = 3 };
	struct msprof_api_event e = { .kind = MSPROF_EV_API };
	struct recfile *f;
	int i;

	CU_ASSERT_EQUAL_FATAL(recfile_create(&f, path), 0);
	CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_NAME, &nr, sizeof(nr),
				       "aclrtMalloc", 12), 0);
	for (i = 0; i < napis; i++) {
		e.end_ns = (uint64_t)i + 100;
		CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_API, &e, sizeof(e), NULL, 0), 0);
	}
	CU_ASSERT_EQUAL(recfile_close(f), 0);
}
