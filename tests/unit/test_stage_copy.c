// SPDX-License-Identifier: MIT
/* What the controller takes from a runtime's PROF_ directory in the stage. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/testpoint.h"
#include "task/stage_copy.h"
#include "unit.h"

/* A stage, what was copied from it, and the PROF_ dir it goes to. */
struct fixture {
	struct stage s;
	struct stage_copy c;
	int to;
};

static int take(struct fixture *t, struct fsutil_budget *b)
{
	return stage_copy_take(&t->c, &t->s, t->to, b);
}

#define RUN "PROF_000001_20260101120000123_00012345ABCDEFGH"
#define OLD_RUN "PROF_000001_20250101120000123_00012345ABCDEFGH"

/* A file of n bytes of 'x' (n <= 256). */
static void put_bytes(int dir, const char *path, size_t n)
{
	int fd = openat(dir, path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	char buf[256];

	CU_ASSERT_FATAL(fd >= 0 && n <= sizeof(buf));
	memset(buf, 'x', n);
	CU_ASSERT_EQUAL(write(fd, buf, n), (ssize_t)n);
	close(fd);
}

static void put(int dir, const char *path)
{
	put_bytes(dir, path, 2);
}

static off_t size_of(int dir, const char *path)
{
	struct stat st;

	return fstatat(dir, path, &st, AT_SYMLINK_NOFOLLOW) ? -1 : st.st_size;
}

static bool there(int dir, const char *path)
{
	struct stat st;

	return !fstatat(dir, path, &st, AT_SYMLINK_NOFOLLOW);
}

#define STAGE_TEMPLATE "/tmp/msprof-unit-XXXXXX"

/* A fake stage and PROF_ dir, both the caller's, and t set up on them. */
static void stage_open(struct fixture *t, char *stage, char *out)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(stage));
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(out));
	memset(t, 0, sizeof(*t));
	t->s.uid = geteuid();
	t->s.fd = open(stage, O_RDONLY | O_DIRECTORY);
	t->to = open(out, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(t->s.fd >= 0 && t->to >= 0);
}

static void stage_close(struct fixture *t, const char *stage, const char *out)
{
	char cmd[128];

	close(t->s.fd);
	close(t->to);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", stage, out);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static void test_take_run(void)
{
	static const char *const dirs[] = {
		RUN, RUN "/device_0", RUN "/device_0/data", RUN "/device_1",
		RUN "/device_1/data", RUN "/host", RUN "/host/data",
		RUN "/device_01", OLD_RUN, OLD_RUN "/device_0",
		RUN "/device_3", RUN "/device_3/data", RUN "/device_4",
		RUN "/device_4/data",
	};
	static const char *const taken[] = {
		"device_0/info.json.0", "device_0/info.json.0.done",
		"device_0/sample.json", "device_0/dev_start.log.0",
		"device_0/data/hwts.data.0.slice_0",
		"device_0/data/hwts.data.0.slice_0.done",
		"device_0/data/task_time.data", "device_1/data/task_time.data",
		"host/data/unaging.api_event.data.slice_0",
		"host/data/aging.additional.type_info_dic.slice_12.done",
		"agent_stats_npusim.json", "device_3/info.json.3",
		/* What the sim's runtime writes: every name of the sheet's §1. */
		"device_0/data/stars_soc.data.0.slice_0",
		"device_0/data/stars_soc.data.0.slice_17",
		"device_0/data/ts_track.data.0.slice_2",
		"device_0/host_start.log.0", "device_0/start_info.0",
		"host/data/aging.compact.task_track.slice_3",
		"host/data/unaging.compact.task_track.slice_0",
		"host/data/aging.compact.node_basic_info.slice_0",
		"host/data/aging.compact.memcpy_info.slice_1",
		"host/data/unaging.additional.hccl_info.slice_0",
		"host/data/unaging.compact.hccl_op_info.slice_0",
		"host/data/unaging.additional.tensor_info.slice_0",
		"host/data/unaging.additional.type_info_dic.slice_0",
		"host/data/unaging.additional.hash_dic.slice_4",
		"host/data/aging.api_event.data.slice_0",
	};
	static const char *const strays[] = {
		"device_0/data/evil.bin", "device_0/data/x.data.1.slice_0",
		"device_0/info.json.1", "device_0/data/hwts.data.0.slice_",
		"host/info.json", "host/data/host_trace.data", "stray.txt",
		"device_01/info.json.01",
		"device_0/data/stars_soc.data.1.slice_0",
		"device_0/data/ts_track.data.0", "host/data/unaging.api_event.data",
		"host/data/staged.compact.task_track.slice_0",
	};
	struct fsutil_budget budget = { .max = STAGE_COPY_MAX_BYTES };
	char stage[] = STAGE_TEMPLATE, out[] = STAGE_TEMPLATE;
	char path[256];
	struct fixture t;
	size_t i;

	stage_open(&t, stage, out);
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		CU_ASSERT_EQUAL(mkdirat(t.s.fd, dirs[i], 0700), 0);
	for (i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
		snprintf(path, sizeof(path), RUN "/%s", taken[i]);
		put(t.s.fd, path);
	}
	for (i = 0; i < sizeof(strays) / sizeof(strays[0]); i++) {
		snprintf(path, sizeof(path), RUN "/%s", strays[i]);
		put(t.s.fd, path);
	}
	put(t.s.fd, OLD_RUN "/device_0/info.json.0");
	put(t.s.fd, "stray_at_top");
	CU_ASSERT_EQUAL(symlinkat("/etc", t.s.fd, RUN "/device_2"), 0);
	CU_ASSERT_EQUAL(symlinkat("/etc/passwd", t.s.fd, RUN "/device_0/end_info.0"), 0);

	CU_ASSERT_EQUAL(take(&t, &budget), 0);
	for (i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
		CU_ASSERT(there(t.to, taken[i]));
	for (i = 0; i < sizeof(strays) / sizeof(strays[0]); i++)
		CU_ASSERT(!there(t.to, strays[i]));
	CU_ASSERT(!there(t.to, "device_2"));
	CU_ASSERT(!there(t.to, "device_0/end_info.0"));
	CU_ASSERT(!there(t.to, RUN));
	CU_ASSERT(!there(t.to, OLD_RUN));
	/* Strays, the two links, the older PROF_ dir and the top stray. */
	CU_ASSERT_EQUAL(t.c.ignored, 12 + 2 + 1 + 1);
	CU_ASSERT_EQUAL(t.c.left_out, 0);
	/* device_3's empty data/ goes; device_4, empty, is not listed. */
	CU_ASSERT(!there(t.to, "device_3/data"));
	CU_ASSERT(!there(t.to, "device_4"));
	/* Only device_1 came without its runtime's info.json.1. */
	CU_ASSERT_EQUAL_FATAL(t.c.ndevices, 3);
	for (i = 0; i < t.c.ndevices; i++)
		CU_ASSERT_EQUAL(t.c.devices[i].has_info, t.c.devices[i].id != 1);
	/* The stage is left empty for the next window. */
	CU_ASSERT(!there(t.s.fd, RUN));
	CU_ASSERT(!there(t.s.fd, OLD_RUN));
	CU_ASSERT(!there(t.s.fd, "stray_at_top"));
	stage_close(&t, stage, out);
}

/*
 * A runtime's PROF_ dir in t's stage, with n slices in device_0/data/,
 * slice_<i> of size[i] bytes.
 */
static void stage_run(struct fixture *t, const size_t *size, size_t n)
{
	char path[128];
	size_t i;

	CU_ASSERT_EQUAL(mkdirat(t->s.fd, RUN, 0700), 0);
	CU_ASSERT_EQUAL(mkdirat(t->s.fd, RUN "/device_0", 0700), 0);
	CU_ASSERT_EQUAL(mkdirat(t->s.fd, RUN "/device_0/data", 0700), 0);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), RUN "/device_0/data/hwts.data.0.slice_%zu", i);
		put_bytes(t->s.fd, path, size[i]);
	}
}

/*
 * The window's byte budget: what would go over it is left out and counted
 * apart from the strays; an empty file (a device without tasks) is taken.
 */
static void test_take_budget(void)
{
	struct fsutil_budget budget = { .max = 150 };
	char stage[] = STAGE_TEMPLATE, out[] = STAGE_TEMPLATE, text[256];
	bool first, second;
	struct fixture t;

	stage_open(&t, stage, out);
	stage_run(&t, (const size_t[]){ 100, 100 }, 2);
	put_bytes(t.s.fd, RUN "/device_0/data/task_time.data", 0);

	CU_ASSERT_EQUAL(take(&t, &budget), 0);
	CU_ASSERT_EQUAL(size_of(t.to, "device_0/data/task_time.data"), 0);
	/* Either slice fits alone, never both. */
	first = there(t.to, "device_0/data/hwts.data.0.slice_0");
	second = there(t.to, "device_0/data/hwts.data.0.slice_1");
	CU_ASSERT(first != second);
	CU_ASSERT_EQUAL(size_of(t.to, first ? "device_0/data/hwts.data.0.slice_0" :
					       "device_0/data/hwts.data.0.slice_1"), 100);
	CU_ASSERT_EQUAL(budget.used, 100);
	CU_ASSERT_EQUAL(t.c.left_out, 1);
	CU_ASSERT_EQUAL(t.c.left_why, STAGE_LEFT_BUDGET);
	CU_ASSERT_STRING_EQUAL(stage_copy_left_text(&t.c, &budget, text, sizeof(text)),
			       "past the window's 150 bytes copy budget (all targets')");
	CU_ASSERT_EQUAL(t.c.ignored, 0);
	CU_ASSERT_EQUAL(t.c.ndevices, 1);
	/* What was left out does not wait in the stage for a later window. */
	CU_ASSERT(!there(t.s.fd, RUN));
	stage_close(&t, stage, out);
}

/*
 * One budget for the window, however many targets: the second target's
 * slice does not fit what the first one left (issue 22: it was per target).
 */
static void test_take_budget_shared(void)
{
	struct fsutil_budget budget = { .max = 150 };
	char stage[2][sizeof(STAGE_TEMPLATE)] = { STAGE_TEMPLATE, STAGE_TEMPLATE };
	char out[2][sizeof(STAGE_TEMPLATE)] = { STAGE_TEMPLATE, STAGE_TEMPLATE };
	struct fixture t[2];
	int i;

	for (i = 0; i < 2; i++) {
		stage_open(&t[i], stage[i], out[i]);
		stage_run(&t[i], (const size_t[]){ 100 }, 1);
		CU_ASSERT_EQUAL(take(&t[i], &budget), 0);
	}
	CU_ASSERT(there(t[0].to, "device_0/data/hwts.data.0.slice_0"));
	CU_ASSERT_EQUAL(t[0].c.left_out, 0);
	CU_ASSERT(!there(t[1].to, "device_0/data/hwts.data.0.slice_0"));
	CU_ASSERT_EQUAL(t[1].c.left_out, 1);
	CU_ASSERT_EQUAL(t[1].c.left_why, STAGE_LEFT_BUDGET);
	CU_ASSERT_EQUAL(budget.used, 100);
	for (i = 0; i < 2; i++)
		stage_close(&t[i], stage[i], out[i]);
}

/*
 * Past a cap is left out, not ignored: the window is incomplete, and the
 * cap is named.  The file caps lowered as the e2e tests lower them
 * (MSPROF_TEST_LIMITS, testpoint_limit(); a limit is never raised).
 */
static void test_take_file_caps(void)
{
	struct fsutil_budget budget = { .max = STAGE_COPY_MAX_BYTES };
	char stage[] = STAGE_TEMPLATE, out[] = STAGE_TEMPLATE, text[256];
	struct fixture t;

	stage_open(&t, stage, out);
	stage_run(&t, (const size_t[]){ 100, 10, 10, 10 }, 4);
	CU_ASSERT_EQUAL(setenv("MSPROF_TEST_LIMITS",
			       "stage_files=99999999,stage_file_bytes=50,stage_files=2", 1), 0);
	testpoint_init();
	CU_ASSERT_EQUAL(take(&t, &budget), 0);
	unsetenv("MSPROF_TEST_LIMITS");
	testpoint_init();
	/* slice_0 is over 50 bytes; of the others two are taken. */
	CU_ASSERT(!there(t.to, "device_0/data/hwts.data.0.slice_0"));
	CU_ASSERT_EQUAL(t.c.left_out, 2);
	CU_ASSERT_EQUAL(t.c.left_why, STAGE_LEFT_FILES | STAGE_LEFT_FILE_BYTES);
	setenv("MSPROF_TEST_LIMITS", "stage_files=2,stage_file_bytes=50", 1);
	testpoint_init();
	CU_ASSERT_STRING_EQUAL(stage_copy_left_text(&t.c, &budget, text, sizeof(text)),
			       "past 2 files, over 50 bytes a file");
	unsetenv("MSPROF_TEST_LIMITS");
	testpoint_init();
	CU_ASSERT_EQUAL(budget.used, 20);
	CU_ASSERT_EQUAL(t.c.ignored, 0);
	stage_close(&t, stage, out);
}

/* 65 device directories: the one past 64 is left out, and said so. */
static void test_take_device_cap(void)
{
	struct fsutil_budget budget = { .max = STAGE_COPY_MAX_BYTES };
	char stage[] = STAGE_TEMPLATE, out[] = STAGE_TEMPLATE, text[256];
	char path[128];
	struct fixture t;
	int i;

	stage_open(&t, stage, out);
	CU_ASSERT_EQUAL(mkdirat(t.s.fd, RUN, 0700), 0);
	for (i = 0; i <= STAGE_COPY_MAX_DEVICES; i++) {
		snprintf(path, sizeof(path), RUN "/device_%d", i);
		CU_ASSERT_EQUAL(mkdirat(t.s.fd, path, 0700), 0);
		snprintf(path, sizeof(path), RUN "/device_%d/sample.json", i);
		put(t.s.fd, path);
	}
	CU_ASSERT_EQUAL(take(&t, &budget), 0);
	CU_ASSERT_EQUAL(t.c.ndevices, STAGE_COPY_MAX_DEVICES);
	CU_ASSERT_EQUAL(t.c.left_out, 1);
	CU_ASSERT_EQUAL(t.c.left_why, STAGE_LEFT_DEVICES);
	CU_ASSERT_STRING_EQUAL(stage_copy_left_text(&t.c, &budget, text, sizeof(text)),
			       "past 64 device directories");
	CU_ASSERT_EQUAL(t.c.ignored, 0);
	stage_close(&t, stage, out);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo none[] = { CU_TEST_INFO_NULL };
	/* The stage's entries are opened with openat2(). */
	static const CU_TestInfo openat2_tests[] = {
		{ "a runtime's PROF_ dir: allowlisted files taken, the rest counted",
		  test_take_run },
		{ "the window's copy budget; an empty file is taken",
		  test_take_budget },
		{ "one copy budget for all of a window's targets",
		  test_take_budget_shared },
		{ "past a file cap: left out, counted, the cap named",
		  test_take_file_caps },
		{ "past 64 device directories: left out, counted, said",
		  test_take_device_cap },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("stage_copy", none, openat2_tests,
				 unit_no_openat2(), skipped);
}

UNIT_SUITE(register_tests)
