// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "task/profdir.h"
#include "unit.h"
#include "window_fixture.h"

static void test_create_and_finish(void)
{
	char base[] = "/tmp/msprof-unit-XXXXXX", name[64], cmd[200], text[2048];
	struct profdir_summary sum = { .host_pid = 42, .ns_pid = 7, .comm = "a\"b",
				       .window = 1, .api_events = 5,
				       .device_status = "success" };
	struct stat st;
	int out, dir, fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(base));
	out = open(base, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(out >= 0);
	clock_pair_now(&sum.start);
	CU_ASSERT_EQUAL_FATAL(profdir_create(out, &sum, name, sizeof(name), &dir), 0);
	CU_ASSERT_EQUAL(fstatat(dir, PROFDIR_HOST_DATA, &st, 0), 0);
	CU_ASSERT_EQUAL(faccessat(dir, PROFDIR_HOST_START, R_OK, 0), 0);
	CU_ASSERT_EQUAL(faccessat(dir, PROFDIR_HOST_INFO, R_OK, 0), 0);
	CU_ASSERT_NOT_EQUAL(faccessat(dir, PROFDIR_HOST_END, F_OK, 0), 0);
	unit_read_text(dir, PROFDIR_FACTS, text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"state\": \"collecting\""));
	CU_ASSERT_PTR_NULL(strstr(text, "\"end\""));
	CU_ASSERT_EQUAL(profdir_open_host_file(dir, &fd), 0);
	close(fd);
	/* Made once: a second host file is refused, not truncated. */
	CU_ASSERT_EQUAL(profdir_open_host_file(dir, &fd), -EEXIST);
	/* A leftover temporary file (a crash) does not stop the finish. */
	close(openat(dir, PROFDIR_FACTS ".tmp", O_WRONLY | O_CREAT, 0600));
	clock_pair_now(&sum.end);
	CU_ASSERT_EQUAL(profdir_finish(dir, &sum), 0);
	CU_ASSERT_EQUAL(faccessat(dir, PROFDIR_HOST_END, R_OK, 0), 0);
	unit_read_text(dir, PROFDIR_FACTS, text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"state\": \"complete\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"pid\": 42"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"comm\": \"a\\\"b\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"api_events\": 5"));
	CU_ASSERT_NOT_EQUAL(faccessat(dir, PROFDIR_FACTS ".tmp", F_OK, 0), 0);
	close(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	CU_ASSERT_EQUAL(system(cmd), 0);
	close(out);
}

static void test_incomplete_and_discard(void)
{
	char base[] = "/tmp/msprof-unit-XXXXXX", name[64], text[2048];
	struct profdir_summary sum = { .comm = "x", .device_status = "success" };
	int out, dir, fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(base));
	out = open(base, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(out >= 0);
	CU_ASSERT_EQUAL_FATAL(profdir_create(out, &sum, name, sizeof(name), &dir), 0);
	CU_ASSERT_EQUAL(profdir_open_host_file(dir, &fd), 0);
	close(fd);
	/* end_info there already: the window cannot be called complete. */
	close(openat(dir, PROFDIR_HOST_END, O_WRONLY | O_CREAT, 0600));
	sum.incomplete_reason = NULL;
	CU_ASSERT_EQUAL(profdir_finish(dir, &sum), -EEXIST);
	unit_read_text(dir, PROFDIR_FACTS, text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"state\": \"incomplete\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"incomplete_reason\": \"cannot write host/end_info\""));
	/* No host data on disk: not complete either, and said why. */
	CU_ASSERT_EQUAL(unlinkat(dir, PROFDIR_HOST_FILE, 0), 0);
	CU_ASSERT_EQUAL(unlinkat(dir, PROFDIR_HOST_END, 0), 0);
	CU_ASSERT_EQUAL(unlinkat(dir, PROFDIR_HOST_END ".done", 0), -1);
	CU_ASSERT_EQUAL(profdir_finish(dir, &sum), 0);
	unit_read_text(dir, PROFDIR_FACTS, text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"incomplete_reason\": \"host data not synced: No such file or directory\""));
	close(dir);

	CU_ASSERT_EQUAL_FATAL(profdir_create(out, &sum, name, sizeof(name), &dir), 0);
	CU_ASSERT_EQUAL(profdir_open_host_file(dir, &fd), 0);
	close(fd);
	profdir_discard(out, name, dir);
	CU_ASSERT_NOT_EQUAL(faccessat(out, name, F_OK, 0), 0);
	snprintf(text, sizeof(text), "rm -rf '%s'", base);
	CU_ASSERT_EQUAL(system(text), 0);
	close(out);
}

/* Device metadata: ours where the agent filled device_<N>/, a runtime's kept. */
static void test_device_meta(void)
{
	/* A task named as a key: the keys read back are still found. */
	struct profdir_summary sum = { .ns_pid = 9, .comm = "pid", .rank_id = -1 };
	char base[] = "/tmp/msprof-profdir-XXXXXX", text[4096];
	int out, dir = unit_profdir_window(base, &out, &sum);
	struct stat st;

	CU_ASSERT_EQUAL(mkdirat(dir, "device_0", 0750), 0);
	CU_ASSERT_EQUAL(mkdirat(dir, "device_3", 0750), 0);
	close(openat(dir, "device_3/info.json.3", O_WRONLY | O_CREAT, 0600));
	close(openat(dir, "agent_stats_cupti.json", O_WRONLY | O_CREAT, 0600));
	CU_ASSERT_STRING_EQUAL(profdir_device_backend(dir), "cupti");
	CU_ASSERT_EQUAL(profdir_write_device_meta(dir, 0, "cupti", NULL), 0);
	CU_ASSERT_EQUAL(profdir_write_device_meta(dir, 3, "cupti", NULL), 0);
	unit_read_text(dir, "device_0/info.json.0", text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"devices\":\"0\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"hwtype\":\"cuda\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"pid\":\"9\",\"pid_name\":\"pid\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"rank_id\":-1,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"hwts_frequency\":\"1000\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"ctrl_cpu_id\":\"cuda\""));
	unit_read_text(dir, "device_0/host_start.log.0", text, sizeof(text));
	CU_ASSERT_EQUAL(strncmp(text, "[Device0]\nclock_monotonic_raw: ", 31), 0);
	unit_read_text(dir, "device_0/sample.json", text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"devices\":\"0\""));
	CU_ASSERT_EQUAL(fstatat(dir, "device_0/dev_start.log.0.done", &st, 0), 0);
	CU_ASSERT_EQUAL(fstatat(dir, "device_0/end_info.0", &st, 0), 0);
	/* The runtime's own metadata: nothing added beside it. */
	CU_ASSERT_EQUAL(fstatat(dir, "device_3/info.json.3", &st, 0), 0);
	CU_ASSERT_EQUAL(st.st_size, 0);
	CU_ASSERT_NOT_EQUAL(fstatat(dir, "device_3/start_info.3", &st, 0), 0);
	/* Written once: a second pass finds device_0 described. */
	CU_ASSERT_EQUAL(profdir_write_device_meta(dir, 0, "cupti", NULL), 0);
	close(dir);
	close(out);
	unit_remove_dir(base);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo none[] = { CU_TEST_INFO_NULL };
	/* Files in a window are made with openat2(). */
	static const CU_TestInfo openat2_tests[] = {
		{ "create, then finish with " PROFDIR_FACTS, test_create_and_finish },
		{ "an incomplete window; discard", test_incomplete_and_discard },
		{ "device metadata, a runtime's kept", test_device_meta },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("profdir", none, openat2_tests,
				 unit_no_openat2(), skipped);
}

UNIT_SUITE(register_tests)
