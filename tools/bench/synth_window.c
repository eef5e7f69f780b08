// SPDX-License-Identifier: MIT
/*
 * synth_window OUTDIR STEPS: writes one PROF_ directory as a window of
 * npu_sample's shape would leave it, STEPS steps long, without a task or a
 * kernel: per step a launch call holding a runtime call holding an ioctl
 * (our records), and what a CANN runtime's profiling wrote of the same
 * step (its raw host records and the device task's stars_soc records,
 * with the 16-bit task ids' flips).  make bench times exporting it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "msprof/cann_raw.h"
#include "msprof/recfile.h"
#include "task/profdir.h"

#define STEP_NS		30000ull
#define TID		4242
#define STREAMS		4

static int name_api(struct recfile *f, uint32_t id, uint32_t layer,
		    const char *name, const char *arg0)
{
	struct msprof_name_rec rec = { .id = id, .layer = layer };
	char blob[128];
	size_t len = strlen(name) + 1, n = strlen(arg0) + 1;

	memcpy(blob, name, len);
	memcpy(blob + len, arg0, n);
	rec.arg_kinds[0] = MSPROF_ARG_UINT;
	/* The other five argument names are empty: one NUL each. */
	memset(blob + len + n, 0, MSPROF_PROBE_ARGS - 1);
	return recfile_append(f, MSPROF_REC_NAME, &rec, sizeof(rec), blob,
			      len + n + MSPROF_PROBE_ARGS - 1);
}

static int write_host(int dir, const struct clock_pair *t0, unsigned long steps)
{
	struct msprof_api_event outer = {
		.kind = MSPROF_EV_API, .api_id = 0, .tgid = TID, .tid = TID,
		.ns_tid = TID,
	}, inner = outer;
	struct msprof_ioctl_event io = {
		.kind = MSPROF_EV_IOCTL, .fd = 5, .tgid = TID, .tid = TID,
		.cmd = 0xc0104e01, .dev = MSPROF_KDEV(240, 0),
	};
	struct recfile *f;
	unsigned long i;
	int err, fd;

	err = profdir_open_host_file(dir, &fd);
	if (!err)
		err = recfile_fdopen(&f, fd);
	if (err)
		return err;
	err = name_api(f, 0, MSPROF_LAYER_ACL, "aclrtLaunchKernel", "blockDim");
	if (!err)
		err = name_api(f, 1, MSPROF_LAYER_RUNTIME, "rtKernelLaunch", "size");
	/* Every fourth step copies (the device half's stream 3). */
	if (!err)
		err = name_api(f, 2, MSPROF_LAYER_ACL, "aclrtMemcpyAsync", "count");
	if (!err)
		err = name_api(f, 3, MSPROF_LAYER_RUNTIME, "rtMemcpyAsync", "count");
	inner.depth = 1;
	for (i = 0; i < steps && !err; i++) {
		uint64_t t = t0->mono_ns + i * STEP_NS;

		io.start_ns = t + 2000;
		io.end_ns = t + 5000;
		inner.start_ns = t + 1000;
		inner.end_ns = t + 8000;
		outer.api_id = i % STREAMS == STREAMS - 1 ? 2 : 0;
		inner.api_id = outer.api_id + 1;
		inner.args[0] = i;
		outer.start_ns = t;
		outer.end_ns = t + 10000;
		outer.args[0] = 1 + i % 32;
		/* As the ring buffer hands them over: by their ends. */
		err = recfile_append(f, MSPROF_REC_IOCTL, &io, sizeof(io), NULL, 0) ?:
		      recfile_append(f, MSPROF_REC_API, &inner, sizeof(inner), NULL, 0) ?:
		      recfile_append(f, MSPROF_REC_API, &outer, sizeof(outer), NULL, 0);
	}
	return recfile_close(f) ?: err;
}

/* One raw file of the runtime's, made new under the window. */
struct raw_out {
	FILE *fp;
};

static int raw_open(int dir, const char *name, struct raw_out *o)
{
	int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			O_CLOEXEC, 0640);

	if (fd < 0)
		return -errno;
	o->fp = fdopen(fd, "w");
	if (!o->fp) {
		close(fd);
		return -ENOMEM;
	}
	return 0;
}

static void raw_put(struct raw_out *o, const void *rec, size_t len)
{
	fwrite(rec, 1, len, o->fp);
}

static int raw_close(struct raw_out *o)
{
	int err = ferror(o->fp) ? -EIO : 0;

	if (fclose(o->fp) && !err)
		err = -errno;
	return err;
}

/* The kernels of npu_sample's shape, one per stream, and a copy. */
static const struct synth_op {
	const char *name, *type;
	uint32_t ge, rt, sqe;
} ops[STREAMS] = {
	{ "vector_add", "VectorAdd", CANN_GE_AI_VECTOR_CORE,
	  CANN_TASK_KERNEL_AIVEC, CANN_SQE_AIV },
	{ "matmul", "MatMul", CANN_GE_AI_CORE, CANN_TASK_KERNEL_AICORE,
	  CANN_SQE_AI_CORE },
	{ "relu", "Relu", CANN_GE_AI_VECTOR_CORE, CANN_TASK_KERNEL_AIVEC,
	  CANN_SQE_AIV },
	{ "MEMCPY_ASYNC", NULL, 0, CANN_TASK_MEMCPY_ASYNC, CANN_SQE_SDMA },
};

#define ACL_LAUNCH	((CANN_ACL_RTS << 16) | 1)
#define ACL_MEMCPY	((CANN_ACL_RTS << 16) | 2)
#define RT_LAUNCH	(CANN_RT_API_BASE + 1)
#define RT_MEMCPY	(CANN_RT_API_BASE + 2)

static int write_dicts(int dir)
{
	struct raw_out o;
	size_t i;
	int err;

	err = raw_open(dir, "host/data/unaging.additional.type_info_dic.slice_0", &o);
	if (err)
		return err;
	fprintf(o.fp, "20000_%u:aclrtLaunchKernel\n20000_%u:aclrtMemcpyAsync\n"
		"10000_5:launch\n10000_0:node_basic_info\n5000_%u:KernelLaunch\n"
		"5000_%u:MemcpyAsync\n5000_801:memcpy_info\n5000_802:task_track\n"
		"5000_0:KERNEL_AICORE\n5000_66:KERNEL_AIVEC\n5000_5:MEMCPY_ASYNC\n"
		"5000_98:FLIP_TASK\n", ACL_LAUNCH, ACL_MEMCPY, RT_LAUNCH, RT_MEMCPY);
	err = raw_close(&o) ?:
	      raw_open(dir, "host/data/unaging.additional.hash_dic.slice_0", &o);
	if (err)
		return err;
	/* Op names are ids 1..; op types 101.. */
	for (i = 0; i < STREAMS; i++) {
		fprintf(o.fp, "%zu:%s\n", i + 1, ops[i].name);
		if (ops[i].type)
			fprintf(o.fp, "%zu:%s\n", i + 101, ops[i].type);
	}
	return raw_close(&o);
}

struct raw_files {
	struct raw_out api, track, node, copy, stars, flips;
};

static void put_api(struct raw_out *o, uint16_t level, uint32_t type,
		    uint64_t begin, uint64_t end, uint64_t item)
{
	struct cann_api a = {
		.magic = CANN_MAGIC, .level = level, .type = type,
		.thread_id = TID, .begin = begin, .end = end, .item_id = item,
	};

	raw_put(o, &a, sizeof(a));
}

static struct cann_rec_head head(uint16_t level, uint32_t type, size_t len,
				 uint64_t ts)
{
	return (struct cann_rec_head){
		.magic = CANN_MAGIC, .level = level, .type = type,
		.thread_id = TID, .data_len = (uint32_t)(len - 24), .timestamp = ts,
	};
}

static void put_track(struct raw_out *o, uint32_t stream, uint32_t task,
		      uint32_t flips, uint32_t type, uint64_t name, uint64_t ts)
{
	struct cann_task_track r = {
		.head = head(CANN_LEVEL_RUNTIME, CANN_RT_TASK_TRACK, sizeof(r), ts),
		.stream = (uint16_t)stream, .task_id = (uint16_t)task,
		.batch = (uint16_t)flips, .task_type = type, .kernel_name = name,
	};

	raw_put(o, &r, sizeof(r));
}

static void put_stars(struct raw_out *o, uint32_t func, uint32_t sqe,
		      uint32_t stream, uint32_t task, uint64_t cnt)
{
	struct cann_stars_log r = {
		.head = (uint16_t)(func | (sqe << 10)), .magic = CANN_STARS_MAGIC,
		.stream = (uint16_t)stream, .task_id = (uint16_t)task,
		.syscnt = cnt,
	};

	raw_put(o, &r, sizeof(r));
}

/*
 * One step's runtime records: the acl call, the op's node launch and its
 * basic info (a copy has memcpy_info instead), the runtime call holding
 * the task_track, and the device's start and end.  The host's records are
 * CLOCK_MONOTONIC_RAW ns; the device counts CLOCK_MONOTONIC ns, as the
 * device metadata msprof writes for it says.
 */
static void write_step(struct raw_files *f, uint64_t t, uint64_t raw_off,
		       unsigned long i, uint32_t *task, uint32_t *flips)
{
	const struct synth_op *op = &ops[i % STREAMS];
	uint32_t s = (uint32_t)(i % STREAMS), id = task[s];
	uint64_t r = t + raw_off, begin = t + 12000;
	uint64_t end = begin + 1000 * (1 + i % 4);
	bool copy = !op->type;

	put_api(&f->api, CANN_LEVEL_ACL, copy ? ACL_MEMCPY : ACL_LAUNCH, r,
		r + 10000, 0);
	if (!copy) {
		struct cann_node_basic_info nb = {
			.head = head(CANN_LEVEL_NODE, CANN_NODE_BASIC_INFO,
				     sizeof(nb), r + 600),
			.op_name = s + 1, .task_type = op->ge,
			.op_type = s + 101, .block_num = 8,
		};

		put_api(&f->api, CANN_LEVEL_NODE, CANN_NODE_LAUNCH, r + 500,
			r + 9000, s + 1);
		raw_put(&f->node, &nb, sizeof(nb));
	} else {
		struct cann_memcpy_info mi = {
			.head = head(CANN_LEVEL_RUNTIME, CANN_RT_MEMCPY_INFO,
				     sizeof(mi), r + 1001),
			.data_size = 4096, .max_size = 4096, .direction = 2,
		};

		raw_put(&f->copy, &mi, sizeof(mi));
	}
	put_api(&f->api, CANN_LEVEL_RUNTIME, copy ? RT_MEMCPY : RT_LAUNCH,
		r + 1000, r + 8000, 0);
	put_track(&f->track, s, id, flips[s], op->rt, copy ? 0 : s + 1, r + 1001);
	put_stars(&f->stars, CANN_STARS_START, op->sqe, s, id, begin);
	put_stars(&f->stars, CANN_STARS_END, op->sqe, s, id, end);
	if (++task[s] < 65536)
		return;
	/*
	 * The stream's ids wrap: the runtime says so, and so does the device,
	 * once the flip task ran: after the stream's last task of the batch.
	 */
	task[s] = 0;
	flips[s]++;
	put_track(&f->track, s, 0, flips[s], CANN_TASK_FLIP, 0, r + 8500);
	{
		struct cann_ts_flip fl = {
			.tag = CANN_TS_TAG_FLIP, .syscnt = end + 1,
			.stream = (uint16_t)s, .flip_num = (uint16_t)flips[s],
		};

		raw_put(&f->flips, &fl, sizeof(fl));
	}
}

static int write_device(int dir, const struct clock_pair *t0, unsigned long steps)
{
	uint32_t task[STREAMS] = { 0 }, flips[STREAMS] = { 0 };
	uint64_t raw_off = t0->raw_ns - t0->mono_ns;
	struct raw_files f;
	unsigned long i;
	int err;

	if (mkdirat(dir, "device_0", 0750) || mkdirat(dir, "device_0/data", 0750))
		return -errno;
	err = write_dicts(dir) ?:
	      raw_open(dir, "host/data/unaging.api_event.data.slice_0", &f.api) ?:
	      raw_open(dir, "host/data/aging.compact.task_track.slice_0", &f.track) ?:
	      raw_open(dir, "host/data/aging.compact.node_basic_info.slice_0", &f.node) ?:
	      raw_open(dir, "host/data/aging.compact.memcpy_info.slice_0", &f.copy) ?:
	      raw_open(dir, "device_0/data/stars_soc.data.0.slice_0", &f.stars) ?:
	      raw_open(dir, "device_0/data/ts_track.data.0.slice_0", &f.flips);
	if (err)
		return err;
	for (i = 0; i < steps; i++)
		write_step(&f, t0->mono_ns + i * STEP_NS, raw_off, i, task, flips);
	err = raw_close(&f.api);
	err = raw_close(&f.track) ?: err;
	err = raw_close(&f.node) ?: err;
	err = raw_close(&f.copy) ?: err;
	err = raw_close(&f.stars) ?: err;
	err = raw_close(&f.flips) ?: err;
	return err ?: profdir_write_device_meta(dir, 0, "npusim", NULL);
}

int main(int argc, char **argv)
{
	struct profdir_summary sum = { .host_pid = TID, .ns_pid = TID,
				       .comm = "synth", .window = 1 };
	unsigned long steps;
	char name[128];
	int err, out, dir;

	if (argc != 3 || !(steps = strtoul(argv[2], NULL, 10))) {
		fprintf(stderr, "usage: synth_window OUTDIR STEPS\n");
		return 2;
	}
	out = open(argv[1], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (out < 0) {
		perror(argv[1]);
		return 1;
	}
	clock_pair_now(&sum.start);
	err = profdir_create(out, &sum, name, sizeof(name), &dir);
	if (!err)
		err = write_host(dir, &sum.start, steps);
	if (!err)
		err = write_device(dir, &sum.start, steps);
	sum.end = sum.start;
	sum.end.mono_ns += steps * STEP_NS + 20000;
	sum.end.raw_ns += steps * STEP_NS + 20000;
	sum.end.real_ns += steps * STEP_NS + 20000;
	sum.api_events = 2 * steps;
	sum.ioctl_events = steps;
	sum.device_status = "synthetic";
	if (!err)
		err = profdir_finish(dir, &sum);
	if (err) {
		fprintf(stderr, "synth_window: %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	/*
	 * The slices an export draws: our two calls and ioctl a step, the
	 * device task, and the runtime's calls we did not record (its
	 * runtime call each step, a node launch each kernel step).
	 */
	printf("%s/%s %lu\n", argv[1], name,
	       6 * steps - steps / STREAMS);
	return 0;
}
