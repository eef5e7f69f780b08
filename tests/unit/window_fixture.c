// SPDX-License-Identifier: MIT
/* Windows the unit tests make, by hand or by profdir. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msprof/events.h"
#include "msprof/probe_packs.h"
#include "msprof/recfile.h"
#include "task/profdir.h"
#include "unit.h"
#include "window_fixture.h"

void unit_put(const char *dir, const char *name, const char *text)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "we");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	fputs(text, fp);
	CU_ASSERT_EQUAL(fclose(fp), 0);
}

void unit_put_records(const char *dir, const char *name, uint16_t type,
		      const void *rec, size_t len)
{
	char path[128];
	struct recfile *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	CU_ASSERT_EQUAL_FATAL(recfile_create(&f, path), 0);
	CU_ASSERT_EQUAL(recfile_append(f, type, rec, len, NULL, 0), 0);
	CU_ASSERT_EQUAL(recfile_close(f), 0);
}

void unit_window_dirs(char *dir, const char *facts)
{
	char path[128];

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/host", dir);
	CU_ASSERT_EQUAL(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/" PROFDIR_HOST_DATA, dir);
	CU_ASSERT_EQUAL(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/device_0", dir);
	CU_ASSERT_EQUAL(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/device_0/data", dir);
	CU_ASSERT_EQUAL(mkdir(path, 0700), 0);
	unit_put(dir, PROFDIR_HOST_START, "{\"collectionTimeBegin\": \"1\", \"clockMonotonicRaw\": \"0\"}\n");
	unit_put(dir, PROFDIR_FACTS, facts);
}

void unit_remove_dir(const char *dir)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

void unit_comm_window(char *dir, const char *op_type)
{
	static const char names[] = "HcclAllReduce\0send\0recv\0count\0dtype\0op\0comm";
	struct {
		struct msprof_name_rec h;
		char names[sizeof(names)];
	} nr = { .h = { .layer = MSPROF_LAYER_HCCL,
			.arg_kinds = { MSPROF_ARG_HEX, MSPROF_ARG_HEX, MSPROF_ARG_UINT,
				       MSPROF_ARG_UINT, MSPROF_ARG_UINT, MSPROF_ARG_HEX } } };
	struct msprof_api_event api = {
		.kind = MSPROF_EV_API, .tgid = 77, .tid = 7, .ns_tid = 3,
		.start_ns = 500, .end_ns = 1500, .args = { 1, 2, 4096, 4, 0, 0xc0 },
	};
	struct {
		struct msprof_devtask_rec h;
		char name[16];
	} dt[] = {
		{ .h = { .host_tid = 3, .submit_ns = 1000, .start_ns = 2000,
			 .end_ns = 3000 }, .name = "hcom_allReduce_" },
		{ .h = { .host_tid = 9, .submit_ns = 2400, .start_ns = 2500,
			 .end_ns = 2700, .stream = 1 }, .name = "matmul" },
		{ .h = { .host_tid = 9, .submit_ns = 10, .start_ns = 4000,
			 .end_ns = 4500 }, .name = "hcom_allReduce_" },
	};
	char path[128];
	struct recfile *f;
	size_t i;

	memcpy(nr.names, names, sizeof(names));
	snprintf(dt[0].name, sizeof(dt[0].name), "%s", op_type);
	unit_window_dirs(dir, "{\"pid\": 77, \"ns_pid\": 5, \"comm\": \"t\", \"rank_id\": 2, "
	    "\"start\": {\"mono_ns\": 0, \"raw_ns\": 0, \"real_ns\": 1000000}}");
	snprintf(path, sizeof(path), "%s/" PROFDIR_HOST_FILE, dir);
	CU_ASSERT_EQUAL_FATAL(recfile_create(&f, path), 0);
	CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_NAME, &nr, sizeof(nr), NULL, 0), 0);
	CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_API, &api, sizeof(api), NULL, 0), 0);
	CU_ASSERT_EQUAL(recfile_close(f), 0);
	snprintf(path, sizeof(path), "%s/device_0/" PROFDIR_DEVICE_FILE, dir);
	CU_ASSERT_EQUAL_FATAL(recfile_create(&f, path), 0);
	for (i = 0; i < sizeof(dt) / sizeof(dt[0]); i++)
		CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_DEVTASK, &dt[i],
					       sizeof(dt[i]), NULL, 0), 0);
	CU_ASSERT_EQUAL(recfile_close(f), 0);
}

int unit_profdir_window(char *base, int *out, struct profdir_summary *sum)
{
	char name[64];
	int dir, fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(base));
	*out = open(base, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(*out >= 0);
	clock_pair_now(&sum->start);
	CU_ASSERT_EQUAL_FATAL(profdir_create(*out, sum, name, sizeof(name), &dir), 0);
	CU_ASSERT_EQUAL(profdir_open_host_file(dir, &fd), 0);
	close(fd);
	return dir;
}
