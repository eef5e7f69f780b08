// SPDX-License-Identifier: MIT
/* What a PROF_ directory's metadata says, as profdir writes it and profmeta reads it back. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "export/profmeta.h"
#include "task/profdir.h"
#include "unit.h"
#include "window_fixture.h"

/* What profdir writes, profmeta reads back: the clocks, the task, the rank. */
static void test_meta_round_trip(void)
{
	static const struct params_switches sw = { .acl = true, .task_time = true };
	struct profdir_summary sum = { .host_pid = 4242, .ns_pid = 7, .comm = "hostUid",
				       .rank_id = 3, .switches = &sw, .window = 2,
				       .lost_events = 5, .unfinished = 1,
				       .device_status = "success" };
	char base[] = "/tmp/msprof-profmeta-XXXXXX", text[4096];
	struct profmeta m;
	int out, dir = unit_profdir_window(base, &out, &sum);

	unit_read_text(dir, PROFDIR_HOST_INFO, text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"pid\":\"7\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"rank_id\":3,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"platform_version\":\"5\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"DeviceInfo\":[]}"));
	unit_read_text(dir, "host/sample.json", text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"devices\":\"64\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"acl\":\"on\",\"runtimeApi\":\"off\""));
	unit_read_text(dir, PROFDIR_HOST_START ".done", text, sizeof(text));
	CU_ASSERT_EQUAL(strncmp(text, "filesize:", 9), 0);
	/* While it runs: collecting, the start known, no end. */
	CU_ASSERT_EQUAL(profmeta_read(&m, dir), 0);
	CU_ASSERT(m.incomplete);
	CU_ASSERT_EQUAL(m.start.mono_ns, sum.start.mono_ns);
	CU_ASSERT_EQUAL(m.end.mono_ns, 0);
	clock_pair_now(&sum.end);
	CU_ASSERT_EQUAL(profdir_finish(dir, &sum), 0);
	CU_ASSERT_EQUAL(profmeta_read(&m, dir), 0);
	CU_ASSERT_FALSE(m.incomplete);
	CU_ASSERT_EQUAL(m.pid, 4242);
	CU_ASSERT_EQUAL(m.ns_pid, 7);
	CU_ASSERT_STRING_EQUAL(m.comm, "hostUid");
	CU_ASSERT_EQUAL(m.rank_id, 3);
	CU_ASSERT_EQUAL(m.window, 2);
	CU_ASSERT_EQUAL(m.lost_events, 5);
	CU_ASSERT_NOT_EQUAL(m.host_uid[0], '\0');
	CU_ASSERT_EQUAL(memcmp(&m.start, &sum.start, sizeof(m.start)), 0);
	CU_ASSERT_EQUAL(memcmp(&m.end, &sum.end, sizeof(m.end)), 0);
	/* msprof's scale: start_info's epoch µs at the start. */
	CU_ASSERT_EQUAL(profmeta_epoch_ns(&m, sum.start.mono_ns),
			sum.start.real_ns / 1000 * 1000);

	/* No account (a crash as the window began): host/ says the start. */
	CU_ASSERT_EQUAL(unlinkat(dir, PROFDIR_FACTS, 0), 0);
	CU_ASSERT_EQUAL(profmeta_read(&m, dir), 0);
	CU_ASSERT(m.incomplete);
	CU_ASSERT_EQUAL(m.start.mono_ns, sum.start.mono_ns);
	CU_ASSERT_EQUAL(m.start.raw_ns, sum.start.raw_ns);
	CU_ASSERT_EQUAL(m.start.real_ns, sum.start.real_ns / 1000 * 1000);
	CU_ASSERT_EQUAL(m.ns_pid, 7);
	CU_ASSERT_EQUAL(m.rank_id, 3);
	CU_ASSERT_STRING_EQUAL(m.comm, "hostUid");
	close(dir);
	close(out);
	unit_remove_dir(base);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo none[] = { CU_TEST_INFO_NULL };
	/* Files in a window are made with openat2(). */
	static const CU_TestInfo openat2_tests[] = {
		{ "metadata written and read back", test_meta_round_trip },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("profmeta", none, openat2_tests,
				 unit_no_openat2(), skipped);
}

UNIT_SUITE(register_tests)
