// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	struct recfile_stop stop;
	struct seen s = { 0 };
	int fd = mkstemp(path);
	off_t size;

	CU_ASSERT_FATAL(fd >= 0);
	write_sample(path, 10);
	size = lseek(fd, 0, SEEK_END);
	CU_ASSERT_EQUAL(ftruncate(fd, size - 5), 0);
	CU_ASSERT_EQUAL(recfile_read_fd(fd, NULL, count, &s, &stop), -EBADMSG);
	CU_ASSERT_EQUAL(s.apis, 9);
	/* The last record: 4 header bytes and the event. */
	CU_ASSERT_EQUAL(stop.need, 4 + sizeof(struct msprof_api_event));
	CU_ASSERT_EQUAL(stop.offset, (uint64_t)size - stop.need);
	CU_ASSERT_EQUAL(stop.left, stop.need - 5);
	close(fd);
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(recfile_read(path, NULL, count, &s), -EBADMSG);
	CU_ASSERT_EQUAL(s.apis, 9);
	unlink(path);
}

/* Overwrites the header of the record at off. */
static void set_header(int fd, off_t off, uint16_t type, uint16_t size)
{
	struct msprof_rec_hdr rh = { .type = type, .size = size };

	CU_ASSERT_EQUAL(pwrite(fd, &rh, sizeof(rh), off), sizeof(rh));
}

/* A corrupt record header stops the walk there, and says where. */
static void test_corrupt_record(void)
{
	char path[] = "/tmp/msprof-rec-XXXXXX", line[256];
	off_t rec3 = sizeof(struct msprof_file_header) + 4 +
		     sizeof(struct msprof_name_rec) + 12 +
		     2 * (4 + sizeof(struct msprof_api_event));
	static const struct {
		uint16_t type, size;
		int err;
		const char *says;
	} cases[] = {
		/* A type a newer writer may use, with a size past the end. */
		{ 100, UINT16_MAX, -EBADMSG, "record of 65539 bytes runs past the end of the file" },
		{ MSPROF_REC_API, UINT16_MAX, -EILSEQ, "corrupt record (type 2, 65539 bytes)" },
		{ MSPROF_REC_API, 8, -EILSEQ, "corrupt record (type 2, 12 bytes)" },
		{ 0xabcd, 88, -EILSEQ, "corrupt record (type 43981, 92 bytes)" },
	};
	struct recfile_stop stop;
	struct seen s;
	size_t i;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_sample(path, 10);
		set_header(fd, rec3, cases[i].type, cases[i].size);
		memset(&s, 0, sizeof(s));
		CU_ASSERT_EQUAL(recfile_read_fd(fd, NULL, count, &s, &stop), cases[i].err);
		CU_ASSERT_EQUAL(s.apis, 2);
		CU_ASSERT_EQUAL(stop.offset, (uint64_t)rec3);
		recfile_strerror(line, sizeof(line), cases[i].err, &stop);
		CU_ASSERT_PTR_NOT_NULL(strstr(line, cases[i].says));
		CU_ASSERT_EQUAL(strncmp(line, "offset ", 7), 0);
		CU_ASSERT_EQUAL(strtoull(line + 7, NULL, 10), (unsigned long long)rec3);
	}
	close(fd);
	unlink(path);
}

static void test_bad_header(void)
{
	char path[] = "/tmp/msprof-rec-XXXXXX";
	struct msprof_file_header h;
	struct seen s = { 0 };
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, "not a record file at all, really", 32), 32);
	CU_ASSERT_EQUAL(recfile_read(path, NULL, count, &s), -EPROTO);
	CU_ASSERT_EQUAL(recfile_read("/nonexistent/x", NULL, count, &s), -ENOENT);
	/* Ours, but a header that claims more than the file holds. */
	write_sample(path, 1);
	CU_ASSERT_EQUAL(pread(fd, &h, sizeof(h), 0), sizeof(h));
	h.header_size = 1u << 30;
	CU_ASSERT_EQUAL(pwrite(fd, &h, sizeof(h), 0), sizeof(h));
	CU_ASSERT_EQUAL(recfile_read(path, NULL, count, &s), -EPROTO);
	CU_ASSERT_EQUAL(s.apis, 0);
	/* Cut inside the header. */
	CU_ASSERT_EQUAL(ftruncate(fd, sizeof(h) - 1), 0);
	CU_ASSERT_EQUAL(recfile_read(path, NULL, count, &s), -EPROTO);
	close(fd);
	unlink(path);
}

/* Run under alarm(): a FIFO must not block the reader. */
static void test_not_a_file(void)
{
	char dir[] = "/tmp/msprof-rec-XXXXXX", path[64], link[64];
	struct seen s = { 0 };

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	alarm(10);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);
	CU_ASSERT_EQUAL(recfile_read(path, NULL, count, &s), -EINVAL);
	unlink(path);
	/* A link, even to a good file, is not followed. */
	snprintf(path, sizeof(path), "%s/data", dir);
	write_sample(path, 3);
	snprintf(link, sizeof(link), "%s/link", dir);
	CU_ASSERT_EQUAL_FATAL(symlink(path, link), 0);
	CU_ASSERT_EQUAL(recfile_read(link, NULL, count, &s), -ELOOP);
	CU_ASSERT_EQUAL(recfile_read(dir, NULL, count, &s), -EISDIR);
	CU_ASSERT_EQUAL(s.apis, 0);
	CU_ASSERT_EQUAL(recfile_read(path, NULL, count, &s), 0);
	CU_ASSERT_EQUAL(s.apis, 3);
	alarm(0);
	unlink(link);
	unlink(path);
	rmdir(dir);
}

int register_recfile_tests(void)
{
	static const CU_TestInfo tests[] = {
		{ "records read back as written", test_round_trip },
		{ "a truncated file parses up to its last whole record", test_truncated_file },
		{ "a corrupt record header stops the walk there", test_corrupt_record },
		{ "a foreign file is refused", test_bad_header },
		{ "FIFOs, links and directories are not read", test_not_a_file },
		CU_TEST_INFO_NULL,
	};

	return add_suite("recfile", tests);
}
