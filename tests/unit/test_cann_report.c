// SPDX-License-Identifier: MIT
/*
 * The runtime's reports to the agent (agent/cann_report.c) land in a
 * window's files, and outside a window nowhere.
 */
#include <errno.h>
#include <stdio.h>

#include "msprof/cann_raw.h"
#include "msprof/cann_report.h"
#include "agent/cann_report.h"
#include "cann_fixture.h"
#include "unit.h"
#include "window_fixture.h"

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

	unit_cann_dir(dir);
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
	CU_ASSERT_EQUAL(unit_file_size(data, "unaging.api_event.data.slice_0"), 80);
	CU_ASSERT_EQUAL(unit_file_size(data, "aging.compact.task_track.slice_0"), 64);
	CU_ASSERT(unit_file_size(data, "unaging.additional.type_info_dic.slice_0") > 0);
	/* A second flush has nothing left to write. */
	unit_remove_dir(dir);
	unit_cann_dir(dir);
	CU_ASSERT_EQUAL(cann_report_flush(dir, &st), 0);
	CU_ASSERT_EQUAL(st.records, 0);
	CU_ASSERT_EQUAL(unit_file_size(dir, "host"), -1);
	unit_remove_dir(dir);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo none[] = { CU_TEST_INFO_NULL };
	static const CU_TestInfo files[] = {
		{ "reports land in a window's files", test_report_window },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("cann_report", none, files, unit_no_openat2(),
				 skipped);
}

UNIT_SUITE(register_tests)
