// SPDX-License-Identifier: MIT
/*
 * synth_window OUTDIR STEPS: writes one PROF_ directory as a window of
 * npu_sample's shape would leave it, STEPS steps long, without a task or a
 * kernel: per step a launch call holding a runtime call holding an ioctl,
 * and the device task it submitted.  make bench times exporting it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
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
	inner.api_id = 1;
	inner.depth = 1;
	for (i = 0; i < steps && !err; i++) {
		uint64_t t = t0->mono_ns + i * STEP_NS;

		io.start_ns = t + 2000;
		io.end_ns = t + 5000;
		inner.start_ns = t + 1000;
		inner.end_ns = t + 8000;
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

static int write_device(int dir, const struct clock_pair *t0, unsigned long steps)
{
	static const char *const kernels[] = { "vector_add", "matmul", "relu",
					       "MEMCPY_ASYNC" };
	struct msprof_devtask_rec rec = { .host_tid = TID, .block_dim = 8 };
	struct recfile *f;
	unsigned long i;
	int err = 0, fd;

	if (mkdirat(dir, "device_0", 0750) || mkdirat(dir, "device_0/data", 0750))
		return -errno;
	fd = openat(dir, "device_0/" PROFDIR_DEVICE_FILE,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0)
		return -errno;
	err = recfile_fdopen(&f, fd);
	if (err)
		return err;
	for (i = 0; i < steps && !err; i++) {
		const char *name = kernels[i % 4];
		uint64_t t = t0->mono_ns + i * STEP_NS;

		rec.stream = (uint32_t)(i % STREAMS);
		rec.task_id = (uint32_t)i;
		rec.submit_ns = t + 3000;
		rec.start_ns = t + 12000;
		rec.end_ns = t + 12000 + 1000 * (1 + i % 4);
		err = recfile_append(f, MSPROF_REC_DEVTASK, &rec, sizeof(rec),
				     name, strlen(name) + 1);
	}
	return recfile_close(f) ?: err;
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
	printf("%s/%s %lu\n", argv[1], name, 4 * steps);
	return 0;
}
