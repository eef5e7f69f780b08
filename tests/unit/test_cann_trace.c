// SPDX-License-Identifier: MIT
/*
 * The agent's device trace (agent/cann_trace.c): past 65536 tasks of one
 * stream it carries its flip.
 */
#include <stdio.h>
#include <string.h>

#include "msprof/cann_raw.h"
#include "npusim/npusim_prof.h"
#include "agent/cann_slice.h"
#include "agent/cann_trace.h"
#include "cann_fixture.h"
#include "unit.h"
#include "window_fixture.h"

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

	unit_cann_dir(dir);
	fill_stream(&b);
	CU_ASSERT_EQUAL(cann_trace_write(dir, &m, &b, &flips), 0);
	CU_ASSERT_EQUAL(flips, 1);
	snprintf(data, sizeof(data), "%s/device_0/data", dir);
	n = unit_check_slices(data, "stars_soc.data.0", 64, CANN_SLICE_BYTES, &total);
	CU_ASSERT(n > 1);
	CU_ASSERT_EQUAL(total, 2 * 64 * STREAM_TASKS);
	check_stars(data, n);
	CU_ASSERT_EQUAL(unit_file_size(data, "ts_track.data.0.slice_0"), 40);
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
	unit_read_file(data, "info.json.0", text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"hwts_frequency\":\"50\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"platform_version\":\"5\""));
	unit_read_file(data, "dev_start.log.0", text, sizeof(text));
	CU_ASSERT_STRING_EQUAL(text, "clock_monotonic_raw: 5\ncntvct: 7\n");
	unit_read_file(data, "host_start.log.0", text, sizeof(text));
	CU_ASSERT(!strncmp(text, "[Device0]\n", 10));
	CU_ASSERT_EQUAL(unit_file_size(dir, "device_1"), -1);
	devdata_rec_buf_free(&b);
	unit_remove_dir(dir);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo none[] = { CU_TEST_INFO_NULL };
	static const CU_TestInfo files[] = {
		{ "a stream's flip past 65536 tasks", test_trace_flip },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("cann_trace", none, files, unit_no_openat2(),
				 skipped);
}

UNIT_SUITE(register_tests)
