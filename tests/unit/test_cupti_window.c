// SPDX-License-Identifier: MIT
/*
 * The window the CUPTI backend fills from CUPTI's buffers
 * (agent/cupti_window.c), built with CUDA's headers only: it must turn
 * activity records into device task records.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/devdata.h"
#include "unit.h"

#ifdef MSPROF_HAVE_CUPTI
#include "agent/cupti_window.h"

/* CUPTI's clock is the wall clock: far from CLOCK_MONOTONIC. */
#define OFFSET	1700000000000000000ull

struct seen {
	struct msprof_devtask_rec rec[4];
	char name[4][256];
	size_t nr;
};

static int collect(uint16_t type, const void *body, size_t len, void *ctx)
{
	const struct msprof_devtask_rec *r = body;
	struct seen *s = ctx;

	CU_ASSERT_EQUAL(type, MSPROF_REC_DEVTASK);
	CU_ASSERT_FATAL(s->nr < 4 && len > sizeof(*r));
	s->rec[s->nr] = *r;
	snprintf(s->name[s->nr], sizeof(s->name[0]), "%.*s",
		 (int)(len - sizeof(*r)), r->name);
	s->nr++;
	return 0;
}

static void read_tasks(const char *dir, int device, struct seen *s)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/device_%d/data/task_time.data", dir,
		 device);
	memset(s, 0, sizeof(*s));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(recfile_read_fd(fd, NULL, collect, s, NULL), 0);
	close(fd);
}

static void keep_api(struct cupti_window *w, CUpti_ActivityKind kind,
		     uint32_t corr, uint32_t tid, uint64_t start)
{
	CUpti_ActivityAPI a = {
		.kind = kind, .start = start + OFFSET, .end = start + 50 + OFFSET,
		.threadId = tid, .correlationId = corr,
	};

	cupti_window_keep(w, (const CUpti_Activity *)&a);
}

static void keep_kernel(struct cupti_window *w, uint32_t corr,
			const char *name, uint64_t start)
{
	CUpti_ActivityKernel10 k = {
		.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
		.start = start + OFFSET, .end = start + 1000 + OFFSET,
		.deviceId = 1, .streamId = 13, .gridX = 4, .gridY = 2,
		.gridZ = 3, .correlationId = corr, .name = name,
	};

	cupti_window_keep(w, (const CUpti_Activity *)&k);
}

static void test_window(void)
{
	char dir[] = "/tmp/msprof-cupti-XXXXXX", cmd[64], name[201];
	CUpti_ActivityMemcpy6 cp = {
		.kind = CUPTI_ACTIVITY_KIND_MEMCPY,
		.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD,
		.start = 500 + OFFSET, .end = 900 + OFFSET,
		.streamId = 7, .correlationId = 8,
	};
	CUpti_ActivityMemset4 untimed = { .kind = CUPTI_ACTIVITY_KIND_MEMSET };
	struct cupti_window w;
	size_t unlinked;
	struct seen s;

	/* Longer than any fixed name field: the whole of it is kept. */
	memset(name, 'k', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	cupti_window_init(&w);
	keep_api(&w, CUPTI_ACTIVITY_KIND_RUNTIME, 7, 42, 100);
	keep_api(&w, CUPTI_ACTIVITY_KIND_DRIVER, 8, 43, 300);
	keep_kernel(&w, 7, name, 2000);
	keep_kernel(&w, 99, name, 5000);
	cupti_window_keep(&w, (const CUpti_Activity *)&cp);
	cupti_window_keep(&w, (const CUpti_Activity *)&untimed);
	CU_ASSERT_EQUAL(w.tasks.nr, 3);
	CU_ASSERT_EQUAL(w.lost, 1);
	CU_ASSERT_EQUAL(w.names.nr, 1);

	CU_ASSERT_EQUAL(cupti_window_write(&w, OFFSET, dir, &unlinked), 0);
	CU_ASSERT_EQUAL(unlinked, 1);
	cupti_window_free(&w);
	CU_ASSERT_EQUAL(w.tasks.nr, 0);

	read_tasks(dir, 1, &s);
	CU_ASSERT_EQUAL_FATAL(s.nr, 2);
	CU_ASSERT_EQUAL(s.rec[0].stream, 13);
	CU_ASSERT_EQUAL(s.rec[0].task_id, 7);
	CU_ASSERT_EQUAL(s.rec[0].block_dim, 24);
	CU_ASSERT_EQUAL(s.rec[0].host_tid, 42);
	CU_ASSERT_EQUAL(s.rec[0].submit_ns, 100);
	CU_ASSERT_EQUAL(s.rec[0].start_ns, 2000);
	CU_ASSERT_EQUAL(s.rec[0].end_ns, 3000);
	CU_ASSERT_STRING_EQUAL(s.name[0], name);
	/* No API call of its correlation id: no launch to point at. */
	CU_ASSERT_EQUAL(s.rec[1].task_id, 99);
	CU_ASSERT_EQUAL(s.rec[1].host_tid, 0);
	CU_ASSERT_EQUAL(s.rec[1].submit_ns, 0);

	read_tasks(dir, 0, &s);
	CU_ASSERT_EQUAL_FATAL(s.nr, 1);
	CU_ASSERT_STRING_EQUAL(s.name[0], "MEMCPY_HtoD");
	CU_ASSERT_EQUAL(s.rec[0].block_dim, 0);
	CU_ASSERT_EQUAL(s.rec[0].host_tid, 43);
	CU_ASSERT_EQUAL(s.rec[0].submit_ns, 300);
	CU_ASSERT_EQUAL(s.rec[0].start_ns, 500);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}
static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "activity records become device tasks", test_window },
		CU_TEST_INFO_NULL,
	};

	(void)skipped;
	return add_suite("cupti_window", tests);
}

UNIT_SUITE(register_tests)
#endif
