// SPDX-License-Identifier: MIT
/*
 * The agent's CANN raw writer: slices keep whole records, dictionaries
 * name every id they gave, the runtime's reports land in their files (and
 * outside a window nowhere), a device trace past 65536 tasks of one
 * stream carries its flip.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msprof/cann_raw.h"
#include "msprof/cann_report.h"
#include "npusim/npusim_prof.h"
#include "agent/cann_dict.h"
#include "agent/cann_report.h"
#include "agent/cann_slice.h"
#include "agent/cann_trace.h"
#include "unit.h"

static void make_dir(char *dir)
{
	strcpy(dir, "/tmp/msprof-cann-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
}

static void remove_dir(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* Size of dir/name, -1 when absent. */
static long long size_of(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) ? -1 : (long long)st.st_size;
}

/* The slices base.slice_0.. in dir: how many, each a whole of size. */
static unsigned int check_slices(const char *dir, const char *base,
				 size_t size, long long limit,
				 long long *total)
{
	char name[256];
	unsigned int k;
	long long n;

	*total = 0;
	for (k = 0;; k++) {
		snprintf(name, sizeof(name), "%s.slice_%u", base, k);
		n = size_of(dir, name);
		if (n < 0)
			return k;
		CU_ASSERT_EQUAL(n % (long long)size, 0);
		CU_ASSERT(n <= limit || n == (long long)size);
		CU_ASSERT(n > 0);
		*total += n;
	}
}

static void test_slices_whole(void)
{
	unsigned char rec[64 * 100], big[2000] = { 0 };
	struct cann_slice s;
	char dir[32];
	long long total;
	int fd;

	make_dir(dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(fd >= 0);
	memset(rec, 7, sizeof(rec));
	CU_ASSERT_EQUAL(cann_slice_init(&s, fd, "aging.compact.x", 1000), 0);
	CU_ASSERT_EQUAL(cann_slice_put(&s, rec, 64, 37), 0);
	CU_ASSERT_EQUAL(cann_slice_put(&s, rec, 64, 63), 0);
	CU_ASSERT_EQUAL(cann_slice_close(&s), 0);
	/* 15 records of 64 bytes fit in 1000. */
	CU_ASSERT_EQUAL(check_slices(dir, "aging.compact.x", 64, 1000, &total), 7);
	CU_ASSERT_EQUAL(total, 6400);
	/* A record bigger than a slice gets one of its own, never cut. */
	CU_ASSERT_EQUAL(cann_slice_init(&s, fd, "big", 1000), 0);
	CU_ASSERT_EQUAL(cann_slice_put(&s, rec, 64, 1), 0);
	CU_ASSERT_EQUAL(cann_slice_put(&s, big, sizeof(big), 1), 0);
	CU_ASSERT_EQUAL(cann_slice_close(&s), 0);
	CU_ASSERT_EQUAL(size_of(dir, "big.slice_0"), 64);
	CU_ASSERT_EQUAL(size_of(dir, "big.slice_1"), 2000);
	CU_ASSERT_EQUAL(size_of(dir, "big.slice_2"), -1);
	close(fd);
	remove_dir(dir);
}

static void test_slice_limit_knob(void)
{
	setenv("MSPROF_TEST_SLICE_BYTES", "10", 1);
	CU_ASSERT_EQUAL(cann_slice_limit(), 256);
	setenv("MSPROF_TEST_SLICE_BYTES", "5000", 1);
	CU_ASSERT_EQUAL(cann_slice_limit(), 5000);
	/* A test knob lowers only. */
	setenv("MSPROF_TEST_SLICE_BYTES", "999999999", 1);
	CU_ASSERT_EQUAL(cann_slice_limit(), CANN_SLICE_BYTES);
	setenv("MSPROF_TEST_SLICE_BYTES", "1k", 1);
	CU_ASSERT_EQUAL(cann_slice_limit(), CANN_SLICE_BYTES);
	unsetenv("MSPROF_TEST_SLICE_BYTES");
	CU_ASSERT_EQUAL(cann_slice_limit(), CANN_SLICE_BYTES);
}

static void read_file(const char *dir, const char *name, char *buf,
		      size_t len)
{
	char path[512];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	n = fread(buf, 1, len - 1, fp);
	buf[n] = '\0';
	fclose(fp);
}

static void test_dict_names_every_id(void)
{
	static const char *const strs[] = { "matmul", "a:b", "Memcpy", "x" };
	uint64_t ids[4];
	char dir[32], line[64], *text = malloc(1 << 20);
	size_t i;
	int fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	for (i = 0; i < 4; i++) {
		ids[i] = cann_dict_hash(strs[i], strlen(strs[i]));
		CU_ASSERT(ids[i] != 0);
	}
	CU_ASSERT_EQUAL(cann_dict_hash("matmul", 6), ids[0]);
	CU_ASSERT(ids[0] != ids[1] && ids[1] != ids[2] && ids[2] != ids[3]);
	/* A line break would make a second dictionary line. */
	CU_ASSERT_EQUAL(cann_dict_hash("a\nb", 3), 0);
	CU_ASSERT_EQUAL(cann_dict_hash("", 0), 0);
	CU_ASSERT_EQUAL(cann_dict_add_type(5000, 1001, "KernelLaunch"), 0);
	CU_ASSERT_EQUAL(cann_dict_add_type(5000, 1001, "Launch\n"), -EINVAL);
	make_dir(dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_EQUAL(cann_dict_write(fd, CANN_SLICE_BYTES), 0);
	close(fd);
	read_file(dir, "unaging.additional.hash_dic.slice_0", text, 1 << 20);
	for (i = 0; i < 4; i++) {
		snprintf(line, sizeof(line), "\n%llu:%s\n",
			 (unsigned long long)ids[i], strs[i]);
		CU_ASSERT_PTR_NOT_NULL(strstr(text, line + 1));
	}
	read_file(dir, "unaging.additional.type_info_dic.slice_0", text, 1 << 20);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n5000_1001:KernelLaunch\n"));
	/* The library's own names: the node level's launch among them. */
	CU_ASSERT(!strncmp(text, "10000_5:launch\n", 15));
	free(text);
	remove_dir(dir);
}

static struct cann_api api(uint16_t level, uint32_t type)
{
	return (struct cann_api){ .magic = CANN_MAGIC, .level = level,
				  .type = type, .begin = 10, .end = 20 };
}

static void test_report_window(void)
{
	struct cann_api acl = api(CANN_LEVEL_ACL, 3 << 16 | 1),
			rt = api(CANN_LEVEL_RUNTIME, 1001),
			bad = api(4000, 1);
	struct cann_task_track tt = {
		.head = msprof_rec_head(CANN_LEVEL_RUNTIME, CANN_RT_TASK_TRACK,
					40, 11),
		.task_type = CANN_TASK_KERNEL_AICORE,
	};
	struct cann_report_stats st;
	char dir[32], data[64];

	make_dir(dir);
	/* The runtime names its records: their files are named after them. */
	CU_ASSERT_EQUAL(msprof_reg_type_info(CANN_LEVEL_RUNTIME,
					     CANN_RT_TASK_TRACK, "task_track"), 0);
	/* Outside a window: nothing kept, nothing written. */
	CU_ASSERT_EQUAL(msprof_report_switches(), 0);
	CU_ASSERT_EQUAL(msprof_report_api(0, &acl), 0);
	cann_report_start(MSPROF_REPORT_ACL | MSPROF_REPORT_TASK);
	CU_ASSERT_EQUAL(msprof_report_switches(),
			MSPROF_REPORT_ACL | MSPROF_REPORT_TASK);
	CU_ASSERT_EQUAL(msprof_report_api(0, &acl), 0);
	CU_ASSERT_EQUAL(msprof_report_api(0, &acl), 0);
	/* runtimeApi off: the runtime's API is dropped, its task kept. */
	CU_ASSERT_EQUAL(msprof_report_api(0, &rt), 0);
	CU_ASSERT_EQUAL(msprof_report_compact(MSPROF_REPORT_AGING, &tt,
					      sizeof(tt)), 0);
	/* One bad record would cost Huawei's analysis the whole file. */
	CU_ASSERT_EQUAL(msprof_report_api(0, &bad), -EINVAL);
	CU_ASSERT_EQUAL(msprof_report_compact(0, &tt, 40), -EINVAL);
	cann_report_stop();
	CU_ASSERT_EQUAL(msprof_report_api(0, &acl), 0);
	CU_ASSERT_EQUAL(cann_report_flush(dir, &st), 0);
	CU_ASSERT_EQUAL(st.records, 3);
	CU_ASSERT_EQUAL(st.lost, 0);
	CU_ASSERT_EQUAL(st.refused, 1);
	snprintf(data, sizeof(data), "%s/host/data", dir);
	CU_ASSERT_EQUAL(size_of(data, "unaging.api_event.data.slice_0"), 80);
	CU_ASSERT_EQUAL(size_of(data, "aging.compact.task_track.slice_0"), 64);
	CU_ASSERT(size_of(data, "unaging.additional.type_info_dic.slice_0") > 0);
	/* A second flush has nothing left to write. */
	remove_dir(dir);
	make_dir(dir);
	CU_ASSERT_EQUAL(cann_report_flush(dir, &st), 0);
	CU_ASSERT_EQUAL(st.records, 0);
	CU_ASSERT_EQUAL(size_of(dir, "host"), -1);
	remove_dir(dir);
}

#define STREAM_TASKS	(65536 + 3)

/* One stream's tasks as npusim's device reports them: ids wrap once. */
static void fill_stream(struct rec_buf *b)
{
	struct npusim_task_record *r;
	uint32_t i;

	devdata_rec_buf_init(b, sizeof(*r));
	for (i = 0; i < STREAM_TASKS; i++) {
		r = devdata_rec_buf_slot(b);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		*r = (struct npusim_task_record){
			.device = 0, .stream = 3, .task_id = (uint16_t)i,
			.flip = (uint16_t)(i >> 16), .kind = NPUSIM_TASK_AI_CORE,
			.start_cnt = 1000 + 3ull * i, .end_cnt = 1002 + 3ull * i,
			.flip_cnt = i == 65536 ? 999 + 3ull * i : 0,
		};
	}
	/* Another device's task: not device 0's file. */
	r = devdata_rec_buf_slot(b);
	*r = (struct npusim_task_record){ .device = 1, .stream = 1 };
}

/* Every start followed by its end, as many as tasks. */
static void check_stars(const char *data, unsigned int slices)
{
	struct cann_stars_log rec;
	uint64_t starts = 0, ends = 0;
	char path[512];
	unsigned int k;
	FILE *fp;

	for (k = 0; k < slices; k++) {
		snprintf(path, sizeof(path), "%s/stars_soc.data.0.slice_%u", data, k);
		fp = fopen(path, "rb");
		CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
		while (fread(&rec, sizeof(rec), 1, fp) == 1) {
			CU_ASSERT_EQUAL(rec.magic, CANN_STARS_MAGIC);
			CU_ASSERT_EQUAL(rec.head >> 10, CANN_SQE_AI_CORE);
			CU_ASSERT_EQUAL(rec.stream, 3);
			if ((rec.head & 0x3f) == CANN_STARS_START)
				starts++;
			else
				ends++;
			CU_ASSERT(starts - ends <= 1);
		}
		fclose(fp);
	}
	CU_ASSERT_EQUAL(starts, STREAM_TASKS);
	CU_ASSERT_EQUAL(ends, STREAM_TASKS);
}

static void test_trace_flip(void)
{
	struct cann_meta m = { .device = 0, .hwts_mhz = NPUSIM_HWTS_MHZ,
			       .dev_raw_ns = 5, .dev_cnt = 7 };
	struct cann_ts_flip flip;
	char dir[32], data[64], text[4096];
	long long total;
	unsigned int n;
	uint64_t flips = 0;
	struct rec_buf b;
	FILE *fp;

	make_dir(dir);
	fill_stream(&b);
	CU_ASSERT_EQUAL(cann_trace_write(dir, &m, &b, &flips), 0);
	CU_ASSERT_EQUAL(flips, 1);
	snprintf(data, sizeof(data), "%s/device_0/data", dir);
	n = check_slices(data, "stars_soc.data.0", 64, CANN_SLICE_BYTES, &total);
	CU_ASSERT(n > 1);
	CU_ASSERT_EQUAL(total, 2 * 64 * STREAM_TASKS);
	check_stars(data, n);
	CU_ASSERT_EQUAL(size_of(data, "ts_track.data.0.slice_0"), 40);
	snprintf(text, sizeof(text), "%s/ts_track.data.0.slice_0", data);
	fp = fopen(text, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	CU_ASSERT_EQUAL(fread(&flip, sizeof(flip), 1, fp), 1);
	fclose(fp);
	CU_ASSERT_EQUAL(flip.tag, CANN_TS_TAG_FLIP);
	CU_ASSERT_EQUAL(flip.stream, 3);
	CU_ASSERT_EQUAL(flip.flip_num, 1);
	CU_ASSERT_EQUAL(flip.task_id, 0);
	CU_ASSERT_EQUAL(flip.syscnt, 999 + 3ull * 65536);
	snprintf(data, sizeof(data), "%s/device_0", dir);
	read_file(data, "info.json.0", text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"hwts_frequency\":\"50\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"platform_version\":\"5\""));
	read_file(data, "dev_start.log.0", text, sizeof(text));
	CU_ASSERT_STRING_EQUAL(text, "clock_monotonic_raw: 5\ncntvct: 7\n");
	read_file(data, "host_start.log.0", text, sizeof(text));
	CU_ASSERT(!strncmp(text, "[Device0]\n", 10));
	CU_ASSERT_EQUAL(size_of(dir, "device_1"), -1);
	devdata_rec_buf_free(&b);
	remove_dir(dir);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "slice limit test knob", test_slice_limit_knob },
		CU_TEST_INFO_NULL,
	};
	static const CU_TestInfo files[] = {
		{ "slices keep whole records", test_slices_whole },
		{ "dictionaries name every id", test_dict_names_every_id },
		{ "reports land in a window's files", test_report_window },
		{ "a stream's flip past 65536 tasks", test_trace_flip },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("cann_trace", tests, files, unit_no_openat2(),
				 skipped);
}

UNIT_SUITE(register_tests)
