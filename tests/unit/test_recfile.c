// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msprof/recfile.h"
#include "recfile_fixture.h"
#include "unit.h"

static void test_round_trip(void)
{
	char path[] = "/tmp/msprof-rec-XXXXXX";
	struct msprof_file_header h;
	struct unit_recs_seen s = { 0 };
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	unit_write_sample(path, 1000);
	CU_ASSERT_EQUAL(unit_read_path(path, &h, unit_count_recs, &s), 0);
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
	struct unit_recs_seen s = { 0 };
	int fd = mkstemp(path);
	off_t size;

	CU_ASSERT_FATAL(fd >= 0);
	unit_write_sample(path, 10);
	size = lseek(fd, 0, SEEK_END);
	CU_ASSERT_EQUAL(ftruncate(fd, size - 5), 0);
	CU_ASSERT_EQUAL(recfile_read_fd(fd, NULL, unit_count_recs, &s, &stop), -EBADMSG);
	CU_ASSERT_EQUAL(s.apis, 9);
	/* The last record: 4 header bytes and the event. */
	CU_ASSERT_EQUAL(stop.need, 4 + sizeof(struct msprof_api_event));
	CU_ASSERT_EQUAL(stop.offset, (uint64_t)size - stop.need);
	CU_ASSERT_EQUAL(stop.left, stop.need - 5);
	close(fd);
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(unit_read_path(path, NULL, unit_count_recs, &s), -EBADMSG);
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
	struct unit_recs_seen s;
	size_t i;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unit_write_sample(path, 10);
		set_header(fd, rec3, cases[i].type, cases[i].size);
		memset(&s, 0, sizeof(s));
		CU_ASSERT_EQUAL(recfile_read_fd(fd, NULL, unit_count_recs, &s, &stop), cases[i].err);
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
	struct unit_recs_seen s = { 0 };
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, "not a record file at all, really", 32), 32);
	CU_ASSERT_EQUAL(unit_read_path(path, NULL, unit_count_recs, &s), -EPROTO);
	CU_ASSERT_EQUAL(unit_read_path("/nonexistent/x", NULL, unit_count_recs, &s), -ENOENT);
	/* Ours, but a header that claims more than the file holds. */
	unit_write_sample(path, 1);
	CU_ASSERT_EQUAL(pread(fd, &h, sizeof(h), 0), sizeof(h));
	h.header_size = 1u << 30;
	CU_ASSERT_EQUAL(pwrite(fd, &h, sizeof(h), 0), sizeof(h));
	CU_ASSERT_EQUAL(unit_read_path(path, NULL, unit_count_recs, &s), -EPROTO);
	CU_ASSERT_EQUAL(s.apis, 0);
	/* Cut inside the header. */
	CU_ASSERT_EQUAL(ftruncate(fd, sizeof(h) - 1), 0);
	CU_ASSERT_EQUAL(unit_read_path(path, NULL, unit_count_recs, &s), -EPROTO);
	close(fd);
	unlink(path);
}

/* Run under alarm(): a FIFO must not block the reader. */
/* A small file of every kind of record, built byte by byte. */
struct sample {
	unsigned char bytes[1024];
	size_t len;
	size_t nrecs;
	size_t start[8];	/* each record's offset, and the end after */
	uint16_t type[8];
	uint16_t size[8];
};

static void sample_add(struct sample *s, uint16_t type, const void *body,
		       uint16_t size)
{
	struct msprof_rec_hdr rh = { .type = type, .size = size };

	CU_ASSERT_FATAL(s->nrecs < 7 && s->len + sizeof(rh) + size <= sizeof(s->bytes));
	s->start[s->nrecs] = s->len;
	s->type[s->nrecs] = type;
	s->size[s->nrecs] = size;
	memcpy(s->bytes + s->len, &rh, sizeof(rh));
	if (size)
		memcpy(s->bytes + s->len + sizeof(rh), body, size);
	s->len += sizeof(rh) + size;
	s->start[++s->nrecs] = s->len;
}

/* extra: bytes a newer writer's header would add. */
static void make_sample(struct sample *s, uint32_t extra)
{
	struct msprof_file_header h = {
		.version = MSPROF_REC_VERSION,
		.header_size = (uint32_t)sizeof(h) + extra,
		.mono_ns = 5, .real_ns = 7,
	};
	struct {
		struct msprof_name_rec h;
		char names[16];
	} nr = { .h = { .id = 1 }, .names = "aclInit\0size\0\0\0\0" };
	struct msprof_api_event api = { .kind = MSPROF_EV_API, .end_ns = 99 };
	struct msprof_ioctl_payload_event io = { .io = { .kind = MSPROF_EV_IOCTL },
						 .payload_len = 4 };
	struct {
		struct msprof_devtask_rec h;
		char name[4];
	} dt = { .h = { .stream = 3 }, .name = "ker" };

	memset(s, 0, sizeof(*s));
	memcpy(h.magic, MSPROF_REC_MAGIC, sizeof(h.magic));
	memcpy(s->bytes, &h, sizeof(h));
	memset(s->bytes + sizeof(h), 0xee, extra);
	s->len = sizeof(h) + extra;
	sample_add(s, MSPROF_REC_NAME, &nr, sizeof(nr));
	sample_add(s, MSPROF_REC_API, &api, sizeof(api));
	sample_add(s, MSPROF_REC_IOCTL, &io, sizeof(io.io) + 8 + 4);
	sample_add(s, MSPROF_REC_DEVTASK, &dt, sizeof(dt));
	/* A type a newer writer may add, with nothing in it, and another. */
	sample_add(s, 100, NULL, 0);
	sample_add(s, MSPROF_REC_TYPE_END - 1, "abc", 3);
}

/* Checks each record visited against the sample, in order. */
struct replay {
	const struct sample *s;
	size_t seen;
	size_t stop_at;		/* visit that fails with -ECANCELED; 0: none */
	int grow_fd;		/* appends a record on the first visit; -1: none */
};

static int replay(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct replay *r = ctx;
	const struct sample *s = r->s;
	size_t i = r->seen++;
	size_t k;

	if (r->stop_at && r->seen == r->stop_at)
		return -ECANCELED;
	if (r->grow_fd >= 0 && i == 0)
		CU_ASSERT_EQUAL(write(r->grow_fd, s->bytes + s->start[1],
				      s->start[2] - s->start[1]),
				(ssize_t)(s->start[2] - s->start[1]));
	CU_ASSERT_FATAL(i < s->nrecs);
	CU_ASSERT_EQUAL(type, s->type[i]);
	CU_ASSERT_EQUAL_FATAL(len, s->size[i]);
	CU_ASSERT_EQUAL(memcmp(body, s->bytes + s->start[i] + sizeof(struct msprof_rec_hdr), len), 0);
	/* Aligned for the record structs, and NULs after: names end. */
	CU_ASSERT_EQUAL((uintptr_t)body % 8, 0);
	for (k = 0; k < 128; k++)
		CU_ASSERT_EQUAL_FATAL(((const unsigned char *)body)[len + k], 0);
	return 0;
}

/* The sample's first len bytes, in fd. */
static void put_prefix(int fd, const struct sample *s, size_t len)
{
	CU_ASSERT_EQUAL_FATAL(ftruncate(fd, 0), 0);
	CU_ASSERT_EQUAL_FATAL(pwrite(fd, s->bytes, len, 0), (ssize_t)len);
}

/*
 * Cut at every byte: in the file header, a record header, a body.  The
 * records before the cut are read, and the stop says where and why.
 */
static void test_cut_everywhere(void)
{
	char path[] = "/tmp/msprof-rec-XXXXXX", line[256];
	uint32_t extras[] = { 0, 24 };
	struct msprof_file_header h;
	struct recfile_stop stop;
	struct sample s;
	size_t cut, k, e;
	int fd = mkstemp(path), err;

	CU_ASSERT_FATAL(fd >= 0);
	unlink(path);
	for (e = 0; e < sizeof(extras) / sizeof(extras[0]); e++) {
		make_sample(&s, extras[e]);
		for (cut = 0; cut <= s.len; cut++) {
			struct replay r = { .s = &s, .grow_fd = -1 };

			put_prefix(fd, &s, cut);
			memset(&stop, 0xa5, sizeof(stop));
			err = recfile_read_fd(fd, &h, replay, &r, &stop);
			if (cut < s.start[0]) {
				CU_ASSERT_EQUAL(err, -EPROTO);
				CU_ASSERT_EQUAL(r.seen, 0);
				CU_ASSERT_EQUAL(stop.offset, 0);
				CU_ASSERT_EQUAL(stop.left, cut);
				continue;
			}
			CU_ASSERT_EQUAL(h.header_size, sizeof(h) + extras[e]);
			CU_ASSERT_EQUAL(h.real_ns, 7);
			for (k = 0; s.start[k + 1] <= cut && k < s.nrecs; k++)
				;
			/* k whole records, then the one cut, if any. */
			CU_ASSERT_EQUAL(r.seen, k);
			if (cut == s.start[k]) {
				CU_ASSERT_EQUAL(err, 0);
				continue;
			}
			CU_ASSERT_EQUAL(err, -EBADMSG);
			CU_ASSERT_EQUAL(stop.offset, s.start[k]);
			CU_ASSERT_EQUAL(stop.left, cut - s.start[k]);
			if (cut - s.start[k] < sizeof(struct msprof_rec_hdr)) {
				CU_ASSERT_EQUAL(stop.need, sizeof(struct msprof_rec_hdr));
			} else {
				CU_ASSERT_EQUAL(stop.need, s.start[k + 1] - s.start[k]);
				CU_ASSERT_EQUAL(stop.type, s.type[k]);
			}
			recfile_strerror(line, sizeof(line), err, &stop);
			CU_ASSERT_EQUAL(strtoull(line + 7, NULL, 10), s.start[k]);
			CU_ASSERT_PTR_NULL(strchr(line, '\n'));
		}
	}
	close(fd);
}

/* Sizes a record cannot have, and sizes past the file's end. */
static void test_record_sizes(void)
{
	char path[] = "/tmp/msprof-rec-XXXXXX";
	static const struct {
		int rec;		/* which of the sample's records */
		uint16_t type, size;
		int err;
	} cases[] = {
		{ 0, MSPROF_REC_NAME, sizeof(struct msprof_name_rec), -EILSEQ },
		{ 0, MSPROF_REC_NAME, sizeof(struct msprof_name_rec) + MSPROF_REC_NAMES_MAX + 1, -EILSEQ },
		{ 1, MSPROF_REC_API, 0, -EILSEQ },
		{ 1, MSPROF_REC_API, sizeof(struct msprof_api_event) + 1, -EILSEQ },
		{ 2, MSPROF_REC_IOCTL, sizeof(struct msprof_ioctl_event) - 1, -EILSEQ },
		{ 2, MSPROF_REC_IOCTL, sizeof(struct msprof_ioctl_payload_event) + 1, -EILSEQ },
		{ 3, MSPROF_REC_DEVTASK, sizeof(struct msprof_devtask_rec), -EILSEQ },
		{ 3, MSPROF_REC_DEVTASK, sizeof(struct msprof_devtask_rec) + MSPROF_REC_TASK_NAME_MAX + 1, -EILSEQ },
		{ 4, 0, 0, -EILSEQ },
		{ 4, MSPROF_REC_TYPE_END, 0, -EILSEQ },
		{ 4, UINT16_MAX, UINT16_MAX, -EILSEQ },
		/* Sizes a record may have, claiming more than the file holds. */
		{ 4, MSPROF_REC_IOCTL, sizeof(struct msprof_ioctl_payload_event), -EBADMSG },
		{ 5, MSPROF_REC_TYPE_END - 1, 4, -EBADMSG },
		{ 5, MSPROF_REC_TYPE_END - 1, UINT16_MAX, -EBADMSG },
		{ 3, 100, UINT16_MAX, -EBADMSG },
	};
	struct recfile_stop stop;
	struct sample s;
	size_t i;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	unlink(path);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct replay r = { .s = &s, .grow_fd = -1 };
		int rec = cases[i].rec;

		make_sample(&s, 0);
		put_prefix(fd, &s, s.len);
		set_header(fd, (off_t)s.start[rec], cases[i].type, cases[i].size);
		CU_ASSERT_EQUAL(recfile_read_fd(fd, NULL, replay, &r, &stop), cases[i].err);
		CU_ASSERT_EQUAL(r.seen, (size_t)rec);
		CU_ASSERT_EQUAL(stop.offset, s.start[rec]);
		CU_ASSERT_EQUAL(stop.left, s.len - s.start[rec]);
		CU_ASSERT_EQUAL(stop.need, 4 + (uint64_t)cases[i].size);
		CU_ASSERT_EQUAL(stop.type, cases[i].type);
	}
	close(fd);
}

static void test_bad_file_headers(void)
{
	char path[] = "/tmp/msprof-rec-XXXXXX";
	struct msprof_file_header h;
	static const uint32_t sizes[] = { 0, sizeof(h) - 1, UINT32_MAX };
	struct sample s;
	size_t i;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	unlink(path);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]) + 2; i++) {
		struct replay r = { .s = &s, .grow_fd = -1 };

		make_sample(&s, 0);
		memcpy(&h, s.bytes, sizeof(h));
		if (i < sizeof(sizes) / sizeof(sizes[0]))
			h.header_size = sizes[i];
		else if (i == sizeof(sizes) / sizeof(sizes[0]))
			h.version = MSPROF_REC_VERSION + 1;
		else
			h.magic[7]++;
		memcpy(s.bytes, &h, sizeof(h));
		put_prefix(fd, &s, s.len);
		CU_ASSERT_EQUAL(recfile_read_fd(fd, NULL, replay, &r, NULL), -EPROTO);
		CU_ASSERT_EQUAL(r.seen, 0);
	}
	close(fd);
}

/* A visitor's error ends the walk there; a file growing is read as it was. */
static void test_walk_ends(void)
{
	char path[] = "/tmp/msprof-rec-XXXXXX";
	struct recfile_stop stop;
	struct sample s;
	struct replay r = { .s = &s, .stop_at = 3, .grow_fd = -1 };
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	make_sample(&s, 0);
	put_prefix(fd, &s, s.len);
	CU_ASSERT_EQUAL(recfile_read_fd(fd, NULL, replay, &r, &stop), -ECANCELED);
	CU_ASSERT_EQUAL(r.seen, 3);
	CU_ASSERT_EQUAL(stop.offset, s.start[2]);
	CU_ASSERT_EQUAL(stop.type, s.type[2]);

	/* A writer appending as the reader reads. */
	r = (struct replay){ .s = &s, .grow_fd = open(path, O_WRONLY | O_APPEND) };
	CU_ASSERT_FATAL(r.grow_fd >= 0);
	CU_ASSERT_EQUAL(recfile_read_fd(fd, NULL, replay, &r, &stop), 0);
	CU_ASSERT_EQUAL(r.seen, s.nrecs);
	close(r.grow_fd);
	close(fd);
	unlink(path);
}

/* A record longer than its 16-bit size field is refused, nothing written. */
static void test_append_too_long(void)
{
	char path[] = "/tmp/msprof-rec-XXXXXX";
	static char big[UINT16_MAX + 1];
	struct msprof_api_event e = { .kind = MSPROF_EV_API };
	struct recfile *f;
	struct unit_recs_seen s = { 0 };
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(recfile_create(&f, path), 0);
	CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_API, &e, sizeof(e), NULL, 0), 0);
	CU_ASSERT_EQUAL(recfile_append(f, 100, big, sizeof(big), NULL, 0), -EMSGSIZE);
	CU_ASSERT_EQUAL(recfile_append(f, 100, big, UINT16_MAX, big, 1), -EMSGSIZE);
	CU_ASSERT_EQUAL(recfile_append(f, 100, big, SIZE_MAX, big, 2), -EMSGSIZE);
	CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_API, &e, sizeof(e), NULL, 0), 0);
	CU_ASSERT_EQUAL(recfile_close(f), 0);
	CU_ASSERT_EQUAL(unit_read_path(path, NULL, unit_count_recs, &s), 0);
	CU_ASSERT_EQUAL(s.apis, 2);
	unlink(path);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "records read back as written", test_round_trip },
		{ "a truncated file parses up to its last whole record", test_truncated_file },
		{ "a corrupt record header stops the walk there", test_corrupt_record },
		{ "a foreign file is refused", test_bad_header },
		{ "a file cut at any byte reads up to the cut", test_cut_everywhere },
		{ "sizes a record cannot have, or past the end", test_record_sizes },
		{ "file headers not ours are refused", test_bad_file_headers },
		{ "a visitor ends the walk; a growing file reads as it was", test_walk_ends },
		{ "a record too long for its size field is not written", test_append_too_long },
		CU_TEST_INFO_NULL,
	};

	return add_suite("recfile", tests);
}

UNIT_SUITE(register_tests)
