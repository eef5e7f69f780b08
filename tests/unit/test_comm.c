// SPDX-License-Identifier: MIT
/* The collectives of a window: each op's communicator group, place in it, name. */
#include <stdio.h>
#include <string.h>

#include "export/comm.h"
#include "export/profdata.h"
#include "msprof/events.h"
#include "msprof/probe_packs.h"
#include "msprof/recfile.h"
#include "task/profdir.h"
#include "tasks_fixture.h"
#include "unit.h"
#include "window_fixture.h"

/*
 * Five collectives on communicators A B A C B, each call just before its
 * task: groups numbered by first op, each group's ops counted apart.
 */
static void test_comm_groups(void)
{
	static const char names[] = "HcclAllReduce\0count\0dtype\0comm";
	static const uint64_t comms[] = { 0xa, 0xb, 0xa, 0xc, 0xb };
	static const uint32_t group[] = { 0, 1, 0, 2, 1 }, seq[] = { 0, 0, 1, 0, 1 };
	struct {
		struct msprof_name_rec h;
		char names[sizeof(names)];
	} nr = { .h = { .layer = MSPROF_LAYER_HCCL,
			.arg_kinds = { MSPROF_ARG_UINT, MSPROF_ARG_UINT, MSPROF_ARG_HEX } } };
	struct {
		struct msprof_devtask_rec h;
		char name[16];
	} dt = { .name = "hcom_allReduce_" };
	char dir[] = "/tmp/msprof-tl-XXXXXX", path[128];
	uint64_t handle[3] = { 0 };
	struct msprof_api_event api;
	struct comm_ops c;
	struct profdata p;
	struct recfile *f, *d;
	size_t i, n = sizeof(comms) / sizeof(comms[0]);

	memcpy(nr.names, names, sizeof(names));
	unit_window_dirs(dir, "{\"pid\": 77, \"ns_pid\": 5, \"comm\": \"t\", "
	    "\"start\": {\"mono_ns\": 0, \"raw_ns\": 0, \"real_ns\": 1000000}}");
	snprintf(path, sizeof(path), "%s/" PROFDIR_HOST_FILE, dir);
	CU_ASSERT_EQUAL_FATAL(recfile_create(&f, path), 0);
	snprintf(path, sizeof(path), "%s/device_0/" PROFDIR_DEVICE_FILE, dir);
	CU_ASSERT_EQUAL_FATAL(recfile_create(&d, path), 0);
	CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_NAME, &nr, sizeof(nr), NULL, 0), 0);
	for (i = 0; i < n; i++) {
		api = (struct msprof_api_event){
			.kind = MSPROF_EV_API, .tgid = 77, .tid = 7, .ns_tid = 3,
			.start_ns = 1000 * i + 500, .end_ns = 1000 * i + 900,
			.args = { 16, 4, comms[i] },
		};
		dt.h = (struct msprof_devtask_rec){ .host_tid = 3,
			.submit_ns = 1000 * i + 600, .start_ns = 10000 + 1000 * i,
			.end_ns = 10500 + 1000 * i };
		CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_API, &api, sizeof(api), NULL, 0), 0);
		CU_ASSERT_EQUAL(recfile_append(d, MSPROF_REC_DEVTASK, &dt, sizeof(dt), NULL, 0), 0);
	}
	CU_ASSERT_EQUAL(recfile_close(f), 0);
	CU_ASSERT_EQUAL(recfile_close(d), 0);
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, dir), 0);
	CU_ASSERT_EQUAL_FATAL(comm_ops_load(&c, &p), 0);
	CU_ASSERT_EQUAL_FATAL(c.n, n);
	CU_ASSERT_EQUAL_FATAL(c.ngroups, 3);
	/* Each group's handle, read off its ops. */
	for (i = 0; i < n; i++)
		if (c.v[i].group < 3 && !handle[c.v[i].group])
			handle[c.v[i].group] = c.v[i].comm;
	CU_ASSERT_EQUAL(handle[0], 0xa);
	CU_ASSERT_EQUAL(handle[1], 0xb);
	CU_ASSERT_EQUAL(handle[2], 0xc);
	for (i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(c.v[i].comm, comms[i]);
		CU_ASSERT_EQUAL(c.v[i].group, group[i]);
		CU_ASSERT_EQUAL(c.v[i].seq, seq[i]);
	}
	comm_ops_free(&c);
	profdata_free(&p);
	unit_remove_dir(dir);
}

/* msprof's op names: type, group's last 3 characters, place, iteration. */
static void test_comm_names(void)
{
	static const struct unit_fake_task coll[] = {
		{ 0, "hcom_allReduce_", 1000, 500 },
	};
	struct comm_op op = { .task = 0, .group = 0, .seq = 7 };
	struct profdata p;
	char buf[64];

	unit_fake_window(&p, coll, 1);
	comm_op_name(buf, sizeof(buf), &p, &op);
	CU_ASSERT_STRING_EQUAL(buf, "hcom_allReduce__oup_7_1");
	op.group = 2;
	comm_group_name(buf, sizeof(buf), &p, &op);
	CU_ASSERT_STRING_EQUAL(buf, "hccl_group_2");
	comm_op_name(buf, sizeof(buf), &p, &op);
	CU_ASSERT_STRING_EQUAL(buf, "hcom_allReduce__p_2_7_1");
	op.group = COMM_UNKNOWN;
	comm_op_name(buf, sizeof(buf), &p, &op);
	CU_ASSERT_STRING_EQUAL(buf, "hcom_allReduce__N/A_7_1");
	CU_ASSERT_STRING_EQUAL(comm_data_type_name(4), "FP32");
	CU_ASSERT_EQUAL(comm_data_type_size(11), 2);
	CU_ASSERT_STRING_EQUAL(comm_data_type_name(COMM_UNKNOWN), "N/A");
	unit_free_window(&p);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo plain[] = {
		{ "collective op names as msprof's", test_comm_names },
		CU_TEST_INFO_NULL,
	};
	/* A window's files are read with openat2(). */
	static const CU_TestInfo tests[] = {
		{ "collectives' groups numbered by first op, ops within each", test_comm_groups },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("comm", plain, tests, unit_no_openat2(), skipped);
}

UNIT_SUITE(register_tests)
