// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msprof/recfile.h"
#include "unit.h"

struct seen {
	int names, apis, tasks;
	char last_name[64];
	uint64_t last_end;
};

static int count(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct seen *s = ctx;

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

static void write_sample(const char *path, int napis)
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

static void test_round_trip(void)
{
	char path[] = "/tmp/msprof-rec-XXXXXX";
	struct msprof_file_header h;
	struct seen s = { 0 };
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	write_sample(path, 1000);
	CU_ASSERT_EQUAL(recfile_read(path, &h, count, &s), 0);
	CU_ASSERT_EQUAL(h.version, MSPROF_REC_VERSION);
	CU_ASSERT(h.mono_ns > 0 && h.real_ns > h.mono_ns);
	CU_ASSERT_EQUAL(s.names, 1);
	CU_ASSERT_STRING_EQUAL(s.last_name, "aclrtMalloc");
	CU_ASSERT_EQUAL(s.apis, 1000);
	CU_ASSERT_EQUAL(s.last_end, 1099);
	unlink(path);
}

/* A crash mid-write leaves a partial record; what came before still reads. */
static void test_truncated_file(void)
{
	char path[] = "/tmp/msprof-rec-XXXXXX";
	struct seen s = { 0 };
	int fd = mkstemp(path);
	off_t size;

	CU_ASSERT_FATAL(fd >= 0);
	write_sample(path, 10);
	size = lseek(fd, 0, SEEK_END);
	CU_ASSERT_EQUAL(ftruncate(fd, size - 5), 0);
	close(fd);
	CU_ASSERT_EQUAL(recfile_read(path, NULL, count, &s), 0);
	CU_ASSERT_EQUAL(s.apis, 9);
	unlink(path);
}

static void test_bad_header(void)
{
	char path[] = "/tmp/msprof-rec-XXXXXX";
	struct seen s = { 0 };
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, "not a record file at all, really", 32), 32);
	close(fd);
	CU_ASSERT_EQUAL(recfile_read(path, NULL, count, &s), -EPROTO);
	CU_ASSERT_EQUAL(recfile_read("/nonexistent/x", NULL, count, &s), -ENOENT);
	unlink(path);
}

int register_recfile_tests(void)
{
	static const CU_TestInfo tests[] = {
		{ "records read back as written", test_round_trip },
		{ "a truncated file parses up to its last whole record", test_truncated_file },
		{ "a foreign file is refused", test_bad_header },
		CU_TEST_INFO_NULL,
	};

	return add_suite("recfile", tests);
}
