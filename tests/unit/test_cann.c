// SPDX-License-Identifier: MIT
/*
 * A runtime's raw files read back: records built here from the reference
 * sheet (cann-raw-formats.md), not by the sim, then loaded as a window.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/cann.h"
#include "export/comm.h"
#include "export/naming.h"
#include "export/profdata.h"
#include "unit.h"

#define TID	7
#define H_ADD	11	/* hash_dic ids */
#define H_ADDT	12
#define H_KERN	13

struct rawdir {
	char dir[32];
	char path[160];
};

static const char *at(struct rawdir *w, const char *name)
{
	snprintf(w->path, sizeof(w->path), "%s/%s", w->dir, name);
	return w->path;
}

static void put(struct rawdir *w, const char *name, const void *data, size_t len,
		bool append)
{
	int fd = open(at(w, name), O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC),
		      0600);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void put_text(struct rawdir *w, const char *name, const char *text)
{
	put(w, name, text, strlen(text), false);
}

/*
 * A directory Huawei's msprof would have written alone: host clock raw
 * ns (freq_mhz NULL) or a counter; device 0 at 50 MHz, its count 1000 at
 * host ns 1000000.
 */
static void make_dir(struct rawdir *w, const char *freq_mhz)
{
	char info[128];

	snprintf(w->dir, sizeof(w->dir), "/tmp/msprof-cann-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(w->dir));
	CU_ASSERT_EQUAL(mkdir(at(w, "host"), 0700), 0);
	CU_ASSERT_EQUAL(mkdir(at(w, "host/data"), 0700), 0);
	CU_ASSERT_EQUAL(mkdir(at(w, "device_0"), 0700), 0);
	CU_ASSERT_EQUAL(mkdir(at(w, "device_0/data"), 0700), 0);
	put_text(w, "host/start_info",
		 "{\"collectionTimeBegin\":\"1000\",\"clockMonotonicRaw\":\"900000\"}\n");
	snprintf(info, sizeof(info), "{\"pid\":\"5\",\"CPU\":[{\"Frequency\":\"%s\"}]}\n",
		 freq_mhz ? freq_mhz : "1000");
	put_text(w, "host/info.json", info);
	put_text(w, "host/host_start.log",
		 "[Host]\nclock_monotonic_raw: 1000000\ncntvct: 5000\ncntvct_diff: 0\n");
	put_text(w, "device_0/info.json.0",
		 "{\"DeviceInfo\":[{\"hwts_frequency\":\"50\",\"aic_frequency\":\"1800\"}]}\n");
	put_text(w, "device_0/host_start.log.0",
		 "[Device0]\nclock_monotonic_raw: 1000000\ncntvct: 1000000\ncntvct_diff: 0\n");
	put_text(w, "device_0/dev_start.log.0", "clock_monotonic_raw: 1\ncntvct: 1000\n");
	put_text(w, "host/data/unaging.additional.type_info_dic.slice_0",
		 "5000_0:KERNEL_AICORE\n5000_5:MEMCPY_ASYNC\n5000_98:FLIP_TASK\n"
		 "10000_5:launch\n20000_196609:aclrtLaunchKernel\n");
	put_text(w, "host/data/unaging.additional.hash_dic.slice_0",
		 "11:Add_0\n12:Add\n13:add_kernel:v2\n");
}

static void remove_dir(struct rawdir *w)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", w->dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static void api(struct rawdir *w, uint16_t level, uint32_t type, uint64_t b,
		uint64_t e, uint64_t item)
{
	struct cann_api a = {
		.magic = CANN_MAGIC, .level = level, .type = type, .thread_id = TID,
		.begin = b, .end = e, .item_id = item,
	};

	put(w, "host/data/unaging.api_event.data.slice_0", &a, sizeof(a), true);
}

static void track(struct rawdir *w, const char *file, uint64_t ts, uint16_t stream,
		  uint16_t task, uint64_t type)
{
	struct cann_task_track r = {
		.head = { CANN_MAGIC, CANN_LEVEL_RUNTIME, CANN_RT_TASK_TRACK, TID, 40, ts },
		.stream = stream, .task_id = task, .task_type = type,
		.kernel_name = type == CANN_TASK_KERNEL_AICORE ? H_KERN : 0,
	};

	put(w, file ? file : "host/data/aging.compact.task_track.slice_0", &r,
	    sizeof(r), true);
}

static void basic(struct rawdir *w, uint64_t ts)
{
	struct cann_node_basic_info r = {
		.head = { CANN_MAGIC, CANN_LEVEL_NODE, CANN_NODE_BASIC_INFO, TID, 29, ts },
		.op_name = H_ADD, .task_type = CANN_GE_AI_CORE, .op_type = H_ADDT,
		.block_num = 2u << 16 | 8, .op_flag = 1,
	};

	put(w, "host/data/aging.compact.node_basic_info.slice_0", &r, sizeof(r), true);
}

static void stars(struct rawdir *w, unsigned int func, unsigned int sqe,
		  uint16_t stream, uint16_t task, uint64_t ticks)
{
	struct cann_stars_log r = {
		.head = (uint16_t)(func | sqe << 10), .magic = CANN_STARS_MAGIC,
		.stream = stream, .task_id = task, .syscnt = ticks,
	};

	put(w, "device_0/data/stars_soc.data.0.slice_0", &r, sizeof(r), true);
}

/* One op launch as §4.1 draws it: acl > node (+ basic info) > runtime > track. */
static void launch(struct rawdir *w, uint64_t t0, uint16_t task)
{
	basic(w, t0 + 20);
	track(w, NULL, t0 + 31, 2, task, CANN_TASK_KERNEL_AICORE);
	api(w, CANN_LEVEL_RUNTIME, 1001, t0 + 30, t0 + 80, 0);
	api(w, CANN_LEVEL_NODE, CANN_NODE_LAUNCH, t0 + 10, t0 + 90, H_ADD);
	api(w, CANN_LEVEL_ACL, 0x30001, t0, t0 + 100, 0);
}

static void test_launches(void)
{
	struct profdata p;
	struct rawdir w;
	int i;

	make_dir(&w, NULL);
	for (i = 0; i < 3; i++) {
		launch(&w, 2000000 + (uint64_t)i * 1000, (uint16_t)i);
		/* Device count 1000 is 1000000 ns; 50 MHz: 20 ns a tick. */
		stars(&w, CANN_STARS_START, CANN_SQE_AI_CORE, 2, (uint16_t)i,
		      1000 + 60000 + (uint64_t)i * 100);
		stars(&w, CANN_STARS_END, CANN_SQE_AI_CORE, 2, (uint16_t)i,
		      1000 + 60000 + (uint64_t)i * 100 + 10);
	}
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	CU_ASSERT_FALSE(p.meta.incomplete);
	CU_ASSERT(p.meta.cann_only);
	CU_ASSERT_EQUAL(p.nproblems, 0);
	CU_ASSERT_EQUAL_FATAL(p.ntasks, 3);
	for (i = 0; i < 3; i++) {
		const struct devtask *t = &p.tasks[i];
		const struct devop *op = profdata_task_op(&p, t);

		CU_ASSERT_EQUAL(t->task_id, (uint32_t)i);
		CU_ASSERT_EQUAL(t->stream, 2);
		CU_ASSERT_EQUAL(t->host_tid, TID);
		CU_ASSERT_EQUAL(t->submit_ns, 2000000 + (uint64_t)i * 1000 + 31);
		CU_ASSERT_EQUAL(t->start_ns, 1000000 + 1200000 + (uint64_t)i * 2000);
		CU_ASSERT_EQUAL(t->end_ns - t->start_ns, 200);
		CU_ASSERT_STRING_EQUAL(naming_devtask_name(&p, t), "Add_0");
		CU_ASSERT_STRING_EQUAL(naming_str(&p, op->op_type), "Add");
		CU_ASSERT_STRING_EQUAL(naming_str(&p, op->kernel), "add_kernel:v2");
		CU_ASSERT_STRING_EQUAL(naming_devtask_type(&p, t), "AI_CORE");
		CU_ASSERT_EQUAL(op->block_dim, 8);
		CU_ASSERT_EQUAL(op->mix_ratio, 2);
		CU_ASSERT_EQUAL(op->hf32, 1);
		CU_ASSERT_EQUAL(op->state, OPSTATE_DYNAMIC);
		CU_ASSERT_EQUAL(op->sqe, CANN_SQE_AI_CORE);
	}
	/* Three tasks, one op. */
	CU_ASSERT_EQUAL(p.tasks[0].op, p.tasks[1].op);
	CU_ASSERT_EQUAL(p.tasks[1].op, p.tasks[2].op);
	profdata_free(&p);
	remove_dir(&w);
}

static void flip(struct rawdir *w, uint16_t stream, uint16_t num, uint64_t ticks)
{
	struct cann_ts_flip r = {
		.tag = CANN_TS_TAG_FLIP, .syscnt = ticks, .stream = stream, .flip_num = num,
	};

	put(w, "device_0/data/ts_track.data.0.slice_0", &r, sizeof(r), true);
}

/* Task ids wrap at 65536: batches from the flips match every task. */
static void test_wrap(void)
{
	enum { N = 70000 };
	struct cann_task_track *tr = calloc(N + 1, sizeof(*tr));
	struct cann_stars_log *st = calloc(2 * N, sizeof(*st));
	struct profdata p;
	struct rawdir w;
	size_t i, k = 0;
	uint16_t flips = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(tr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	make_dir(&w, NULL);
	for (i = 0; i < N; i++) {
		uint64_t ts = 2000000 + i * 100, ticks = 1000 + 60000 + i * 10;

		if (i && !(i & 0xffff)) {	/* the wrap: a flip on each side */
			flips++;
			tr[k++] = (struct cann_task_track){
				.head = { CANN_MAGIC, CANN_LEVEL_RUNTIME, CANN_RT_TASK_TRACK,
					  TID, 40, ts - 1 },
				.stream = 3, .batch = flips, .task_type = CANN_TASK_FLIP,
			};
			flip(&w, 3, flips, ticks - 1);
		}
		tr[k++] = (struct cann_task_track){
			.head = { CANN_MAGIC, CANN_LEVEL_RUNTIME, CANN_RT_TASK_TRACK, TID,
				  40, ts },
			.stream = 3, .task_id = (uint16_t)i, .batch = flips,
			.task_type = CANN_TASK_MEMCPY_ASYNC,
		};
		st[2 * i] = (struct cann_stars_log){
			.head = CANN_SQE_SDMA << 10, .magic = CANN_STARS_MAGIC,
			.stream = 3, .task_id = (uint16_t)i, .syscnt = ticks,
		};
		st[2 * i + 1] = st[2 * i];
		st[2 * i + 1].head |= CANN_STARS_END;
		st[2 * i + 1].syscnt = ticks + 5;
	}
	put(&w, "host/data/aging.compact.task_track.slice_0", tr, k * sizeof(*tr), false);
	put(&w, "device_0/data/stars_soc.data.0.slice_0", st, 2 * N * sizeof(*st), false);
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	CU_ASSERT_EQUAL(p.nproblems, 0);
	CU_ASSERT_EQUAL_FATAL(p.ntasks, N);
	for (i = 0; i < N; i++) {
		CU_ASSERT_EQUAL(p.tasks[i].submit_ns, 2000000 + i * 100);
		CU_ASSERT_EQUAL(p.tasks[i].batch, i >> 16);
		if (p.tasks[i].submit_ns != 2000000 + i * 100)
			break;
	}
	CU_ASSERT_STRING_EQUAL(naming_devtask_type(&p, &p.tasks[0]), "MEMCPY_ASYNC");
	profdata_free(&p);
	remove_dir(&w);
	free(tr);
	free(st);
}

/* A host counter at 100 MHz: 10 ns a count from host_start.log's pair. */
static void test_counter_clock(void)
{
	struct profdata p;
	struct rawdir w;

	make_dir(&w, "100");
	track(&w, NULL, 5100, 2, 0, CANN_TASK_KERNEL_AICORE);
	stars(&w, CANN_STARS_START, CANN_SQE_AI_CORE, 2, 0, 2000);
	stars(&w, CANN_STARS_END, CANN_SQE_AI_CORE, 2, 0, 2001);
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	CU_ASSERT_EQUAL(p.nproblems, 0);
	CU_ASSERT_EQUAL_FATAL(p.ntasks, 1);
	CU_ASSERT_EQUAL(p.tasks[0].submit_ns, 1000000 + 100 * 10);
	CU_ASSERT_EQUAL(p.tasks[0].start_ns, 1000000 + 1000 * 20);
	/* No node: the kernel's name is the op's. */
	CU_ASSERT_STRING_EQUAL(naming_devtask_name(&p, &p.tasks[0]), "add_kernel:v2");
	profdata_free(&p);
	remove_dir(&w);
}

static const struct profdata_problem *problem(const struct profdata *p,
					      const char *file, const char *what)
{
	unsigned int i;

	for (i = 0; i < p->nproblems && i < PROFDATA_MAX_PROBLEMS; i++)
		if (strstr(p->problems[i].file, file) && strstr(p->problems[i].what, what))
			return &p->problems[i];
	return NULL;
}

/* Each fault costs its own record, counted once with where it was. */
static void test_faults(void)
{
	const struct profdata_problem *pb;
	struct cann_task_track bad = { .head = { .magic = 0x1234 } };
	struct profdata p;
	struct rawdir w;

	make_dir(&w, NULL);
	put_text(&w, "host/data/unaging.additional.hash_dic.slice_1", "no colon here\n");
	track(&w, NULL, 2000031, 2, 0, CANN_TASK_KERNEL_AICORE);
	put(&w, "host/data/aging.compact.task_track.slice_0", &bad, sizeof(bad), true);
	track(&w, NULL, 2000131, 2, 1, CANN_TASK_KERNEL_AICORE);	/* no device task */
	track(&w, NULL, 2000231, 2, 2, CANN_TASK_KERNEL_AICORE);
	track(&w, NULL, 2000331, 2, 3, CANN_TASK_KERNEL_AICORE);	/* queued at the end */
	put(&w, "host/data/aging.compact.task_track.slice_0", "cut", 3, true);
	stars(&w, CANN_STARS_START, CANN_SQE_AI_CORE, 2, 0, 61000);
	stars(&w, CANN_STARS_END, CANN_SQE_AI_CORE, 2, 0, 61010);
	stars(&w, CANN_STARS_START, 30, 2, 5, 61020);		/* unknown SQE */
	stars(&w, CANN_STARS_START, CANN_SQE_AIV, 2, 9, 61030);	/* no track */
	stars(&w, CANN_STARS_END, CANN_SQE_AIV, 2, 9, 61040);
	stars(&w, CANN_STARS_START, CANN_SQE_AIV, 4, 1, 61050);	/* no end */
	stars(&w, CANN_STARS_START, CANN_SQE_AI_CORE, 2, 2, 61060);
	stars(&w, CANN_STARS_END, CANN_SQE_AI_CORE, 2, 2, 61070);
	unlink(at(&w, "device_0/dev_start.log.0"));
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	CU_ASSERT_EQUAL(p.ntasks, 3);	/* the matched two, the SQE-named one */
	pb = problem(&p, "hash_dic.slice_1", "without ':'");
	CU_ASSERT(pb && pb->stop.offset == 0);
	pb = problem(&p, "task_track.slice_0", "wrong magic");
	CU_ASSERT(pb && pb->stop.offset == 64);
	pb = problem(&p, "task_track.slice_0", "3 bytes after");
	CU_ASSERT(pb && pb->stop.offset == 320);
	pb = problem(&p, "stars_soc.data.0.slice_0", "unknown SQE type 30");
	CU_ASSERT(pb && pb->stop.offset == 128);
	pb = problem(&p, "stars_soc.data.0.slice_0", "no task_track");
	CU_ASSERT(pb && pb->stop.offset == 256);
	pb = problem(&p, "stars_soc.data.0.slice_0", "start without its end");
	CU_ASSERT(pb && pb->stop.offset == 320);
	/* Before a task that ran: lost.  After the last: still queued. */
	pb = problem(&p, "task_track.slice_0", "1 task_tracks with no device task");
	CU_ASSERT(pb && pb->stop.offset == 128 && !pb->kept);
	CU_ASSERT_PTR_NULL(problem(&p, "task_track.slice_0", "task 3"));
	CU_ASSERT_PTR_NOT_NULL(problem(&p, "dev_start.log.0", "missing"));
	CU_ASSERT_EQUAL(p.nproblems, 8);
	CU_ASSERT_EQUAL(p.nkept, 1);	/* the SQE-named task */
	CU_ASSERT_STRING_EQUAL(naming_devtask_type(&p, &p.tasks[1]), "AIV_SQE");
	profdata_free(&p);
	remove_dir(&w);
}

/* Our window: the runtime's raw ns onto CLOCK_MONOTONIC by the pairs. */
static void test_window_clock(void)
{
	struct profdata p;
	struct rawdir w;

	make_dir(&w, NULL);
	put_text(&w, "msprof_ebpf_window.json",
		 "{\"pid\": 5, \"start\": {\"mono_ns\": 500000, \"raw_ns\": 1000000},"
		 " \"end\": {\"mono_ns\": 2500000, \"raw_ns\": 3000000}}");
	track(&w, NULL, 2000000, 2, 0, CANN_TASK_KERNEL_AICORE);
	stars(&w, CANN_STARS_START, CANN_SQE_AI_CORE, 2, 0, 1000 + 60000);
	stars(&w, CANN_STARS_END, CANN_SQE_AI_CORE, 2, 0, 1000 + 60001);
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	CU_ASSERT_FALSE(p.meta.cann_only);
	CU_ASSERT_EQUAL_FATAL(p.ntasks, 1);
	CU_ASSERT_EQUAL(p.tasks[0].submit_ns, 1500000);
	CU_ASSERT_EQUAL(p.tasks[0].start_ns, 1700000);
	profdata_free(&p);
	remove_dir(&w);
}

/*
 * A device directory's own start_info.N places its times on the epoch: the
 * difference of its offset from host/start_info's moves them.
 */
static void test_device_start_info(void)
{
	struct profdata p;
	struct rawdir w;

	make_dir(&w, NULL);
	/* host/start_info: 1000000 − 900000; start_info.0: 1001000 − 900500. */
	put_text(&w, "device_0/start_info.0",
		 "{\"collectionTimeBegin\":\"1001\",\"clockMonotonicRaw\":\"900500\"}\n");
	track(&w, NULL, 2000000, 2, 0, CANN_TASK_KERNEL_AICORE);
	stars(&w, CANN_STARS_START, CANN_SQE_AI_CORE, 2, 0, 1000 + 60000);
	stars(&w, CANN_STARS_END, CANN_SQE_AI_CORE, 2, 0, 1000 + 60001);
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	CU_ASSERT_EQUAL(p.nproblems, 0);
	CU_ASSERT_EQUAL_FATAL(p.ntasks, 1);
	CU_ASSERT_EQUAL(p.tasks[0].submit_ns, 2000000);
	CU_ASSERT_EQUAL(p.tasks[0].start_ns, 2200000 + 500);
	CU_ASSERT_EQUAL(p.tasks[0].end_ns - p.tasks[0].start_ns, 20);
	profdata_free(&p);
	remove_dir(&w);
}

static void tensor(struct rawdir *w, uint64_t ts, uint32_t count,
		   const struct cann_tensor *t)
{
	struct cann_tensor_info r = {
		.head = { CANN_MAGIC, CANN_LEVEL_NODE, CANN_NODE_TENSOR_INFO, TID, 232, ts },
		.op_name = H_ADD, .count = count,
	};

	memcpy(r.tensor, t, count * sizeof(*t));
	put(w, "host/data/unaging.additional.tensor_info.slice_0", &r, sizeof(r), true);
}

/* tensor_info's cells: shapes quoted as msprof keeps them; none of a kind: N/A. */
static void test_tensor_cells(void)
{
	static const struct cann_tensor two_in[] = {
		{ .tensor_type = 0, .format = 2, .data_type = 0, .shape = { 64, 64 } },
		{ .tensor_type = 0, .format = 2, .data_type = 1, .shape = { 64 } },
		{ .tensor_type = 1, .format = 29, .data_type = 0, .shape = { 64, 64 } },
	};
	const struct devop *op;
	struct profdata p;
	struct rawdir w;

	make_dir(&w, NULL);
	launch(&w, 2000000, 0);
	tensor(&w, 2000021, 3, two_in);
	launch(&w, 2001000, 1);
	tensor(&w, 2001021, 1, two_in);	/* an input only */
	stars(&w, CANN_STARS_START, CANN_SQE_AI_CORE, 2, 0, 61000);
	stars(&w, CANN_STARS_END, CANN_SQE_AI_CORE, 2, 0, 61010);
	stars(&w, CANN_STARS_START, CANN_SQE_AI_CORE, 2, 1, 61100);
	stars(&w, CANN_STARS_END, CANN_SQE_AI_CORE, 2, 1, 61110);
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	CU_ASSERT_EQUAL(p.nproblems, 0);
	CU_ASSERT_EQUAL_FATAL(p.ntasks, 2);
	op = profdata_task_op(&p, &p.tasks[0]);
	CU_ASSERT_STRING_EQUAL(naming_str(&p, op->shapes[SHAPE_IN]), "\"64,64;64\"");
	CU_ASSERT_STRING_EQUAL(naming_str(&p, op->shapes[SHAPE_IN_TYPES]), "FLOAT;FLOAT16");
	CU_ASSERT_STRING_EQUAL(naming_str(&p, op->shapes[SHAPE_IN_FORMATS]), "ND;ND");
	CU_ASSERT_STRING_EQUAL(naming_str(&p, op->shapes[SHAPE_OUT]), "\"64,64\"");
	CU_ASSERT_STRING_EQUAL(naming_str(&p, op->shapes[SHAPE_OUT_FORMATS]), "FRACTAL_NZ");
	op = profdata_task_op(&p, &p.tasks[1]);
	CU_ASSERT_STRING_EQUAL(naming_str(&p, op->shapes[SHAPE_IN]), "\"64,64\"");
	CU_ASSERT_STRING_EQUAL(naming_str(&p, op->shapes[SHAPE_OUT]), "N/A");
	CU_ASSERT_STRING_EQUAL(naming_str(&p, op->shapes[SHAPE_OUT_TYPES]), "N/A");
	profdata_free(&p);
	remove_dir(&w);
}

/*
 * Records out of time order within a (stream, task id) pair as Huawei's
 * sorted pairing pairs them: an end read before its start; of two starts
 * before one end, the later.
 */
static void test_stars_order(void)
{
	const struct profdata_problem *pb;
	struct profdata p;
	struct rawdir w;

	make_dir(&w, NULL);
	track(&w, NULL, 2000031, 2, 0, CANN_TASK_KERNEL_AICORE);
	track(&w, NULL, 2000131, 2, 1, CANN_TASK_KERNEL_AICORE);
	stars(&w, CANN_STARS_END, CANN_SQE_AI_CORE, 2, 0, 61010);
	stars(&w, CANN_STARS_START, CANN_SQE_AI_CORE, 2, 0, 61000);
	stars(&w, CANN_STARS_START, CANN_SQE_AI_CORE, 2, 1, 61200);
	stars(&w, CANN_STARS_START, CANN_SQE_AI_CORE, 2, 1, 61100);
	stars(&w, CANN_STARS_END, CANN_SQE_AI_CORE, 2, 1, 61300);
	stars(&w, CANN_STARS_END, CANN_SQE_AI_CORE, 2, 1, 61400);	/* a second end */
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	CU_ASSERT_EQUAL_FATAL(p.ntasks, 2);
	CU_ASSERT_EQUAL(p.tasks[0].start_ns, 1000000 + 60000 * 20);
	CU_ASSERT_EQUAL(p.tasks[0].end_ns - p.tasks[0].start_ns, 200);
	CU_ASSERT_EQUAL(p.tasks[1].start_ns, 1000000 + 60200 * 20);
	CU_ASSERT_EQUAL(p.tasks[1].end_ns - p.tasks[1].start_ns, 2000);
	pb = problem(&p, "stars_soc.data.0.slice_0", "start without its end");
	CU_ASSERT(pb && pb->stop.offset == 3 * 64 && pb->count == 1);
	pb = problem(&p, "stars_soc.data.0.slice_0", "end without its start");
	CU_ASSERT(pb && pb->stop.offset == 5 * 64 && pb->count == 1);
	CU_ASSERT_EQUAL(p.nproblems, 2);
	profdata_free(&p);
	remove_dir(&w);
}

static void hccl_info(struct rawdir *w, uint64_t ts, uint32_t plane, uint64_t bytes)
{
	struct cann_hccl_info r = {
		.head = { CANN_MAGIC, CANN_LEVEL_HCCL, 0, TID, 232, ts },
		.item_id = H_KERN, .group_name = 5878203535622082289ull,
		.rank_size = 2, .remote_rank = 1, .plane_id = plane, .data_size = bytes,
		.notify_id = UINT64_MAX, .link_type = 1,
	};

	put(w, "host/data/unaging.additional.hccl_info.slice_0", &r, sizeof(r), true);
}

/* One node launch of an HCCL op, two tasks with hccl_info: one op of both. */
static void test_hccl_op(void)
{
	struct cann_node_basic_info b = {
		.head = { CANN_MAGIC, CANN_LEVEL_NODE, CANN_NODE_BASIC_INFO, TID, 29, 2000003 },
		.op_name = H_ADD, .task_type = CANN_GE_HCCL, .op_type = H_ADDT,
	};
	struct comm_ops c;
	struct profdata p;
	struct rawdir w;
	char name[64];
	int i;

	make_dir(&w, NULL);
	put(&w, "host/data/aging.compact.node_basic_info.slice_0", &b, sizeof(b), true);
	for (i = 0; i < 2; i++) {
		uint64_t u = 2000010 + (uint64_t)i * 100;

		hccl_info(&w, u + 1, (uint32_t)i, 1000);
		track(&w, NULL, u + 3, 3, (uint16_t)i, i ? CANN_TASK_MEMCPY_ASYNC : 15);
		api(&w, CANN_LEVEL_RUNTIME, 1001, u + 2, u + 20, 0);
		api(&w, CANN_LEVEL_HCCL, CANN_HCCL_MASTER, u, u + 30, H_KERN);
		stars(&w, CANN_STARS_START, CANN_SQE_SDMA, 3, (uint16_t)i,
		      61000 + (uint64_t)i * 100);
		stars(&w, CANN_STARS_END, CANN_SQE_SDMA, 3, (uint16_t)i,
		      61000 + (uint64_t)i * 100 + 50);
	}
	api(&w, CANN_LEVEL_NODE, CANN_NODE_LAUNCH, 2000002, 2000400, H_ADD);
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	CU_ASSERT_EQUAL(p.nproblems, 0);
	CU_ASSERT_EQUAL_FATAL(p.ntasks, 2);
	CU_ASSERT_STRING_EQUAL(naming_devtask_type(&p, &p.tasks[1]), "MEMCPY_ASYNC");
	CU_ASSERT_STRING_EQUAL(naming_devtask_name(&p, &p.tasks[1]), "MEMCPY_ASYNC");
	CU_ASSERT_EQUAL_FATAL(comm_ops_load(&c, &p), 0);
	CU_ASSERT_EQUAL_FATAL(c.n, 1);
	CU_ASSERT(c.v[0].raw);
	CU_ASSERT_EQUAL(c.v[0].ntasks, 2);
	CU_ASSERT_EQUAL(c.v[0].start_ns, p.tasks[0].start_ns);
	CU_ASSERT_EQUAL(c.v[0].end_ns, p.tasks[1].end_ns);
	CU_ASSERT_EQUAL(c.v[0].bytes, 2000);
	CU_ASSERT_EQUAL(c.v[0].rank_size, 2);
	CU_ASSERT_EQUAL(c.v[0].call_ns, 2000002);	/* the node launch, for the flow */
	CU_ASSERT_EQUAL(c.v[0].conn, 5);	/* the fifth API record */
	comm_op_name(name, sizeof(name), &p, &c.v[0]);
	CU_ASSERT_STRING_EQUAL(name, "Add_0_289_0_1");
	CU_ASSERT_STRING_EQUAL(comm_op_type(&p, &c.v[0]), "Add");
	comm_ops_free(&c);
	profdata_free(&p);
	remove_dir(&w);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo none[] = { CU_TEST_INFO_NULL };
	static const CU_TestInfo tests[] = {
		{ "op launches: names, node info, clocks, pairing", test_launches },
		{ "task ids wrapping past 65536 match by batch", test_wrap },
		{ "a host CPU counter through host_start.log", test_counter_clock },
		{ "faults cost their record, counted with offsets", test_faults },
		{ "raw ns onto our clock by the window's pairs", test_window_clock },
		{ "a device directory's start_info.N places its times", test_device_start_info },
		{ "tensor_info's cells as msprof writes them", test_tensor_cells },
		{ "stars records out of time order pair as sorted", test_stars_order },
		{ "a node launch's HCCL tasks with hccl_info: one op", test_hccl_op },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("cann", none, tests, unit_no_openat2(), skipped);
}

UNIT_SUITE(register_tests)
