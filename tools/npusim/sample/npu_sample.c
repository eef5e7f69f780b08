// SPDX-License-Identifier: MIT
/*
 * npu_sample: a training-like loop on the simulated accelerator, the target
 * the profiler is tested and demonstrated against.  At exit it prints how
 * many times it called each API so that a test can check a profile against
 * the truth.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <acl/acl.h>
#include <hccl/hccl.h>
#include <mstx/ms_tools_ext.h>
#include <npusim/npusim_queue.h>

#include "../npusim_kernels.h"

#define MAX_DEVICES	8	/* npusim's own limit */
#define VEC_N		4096	/* elements of the vector kernels */
#define MAT_N		64	/* the matmul is MAT_N x MAT_N x MAT_N */
#define MAT_SIZE	(MAT_N * MAT_N)
/* All inputs in one block, so one H2D copy per step carries them. */
#define IN_N		(2 * VEC_N + 2 * MAT_SIZE)
/* What --slow-rank's rank computes more a step: rounds of this many
 * matmuls, as many as --slow-ms takes (at least one). */
#define SLOW_MATMULS	8

#define SAMPLE_APIS(X)							\
	X(aclInit) X(aclFinalize) X(aclrtGetDeviceCount)		\
	X(aclrtSetDevice) X(aclrtResetDevice)				\
	X(aclrtCreateStream) X(aclrtDestroyStream)			\
	X(aclrtMalloc) X(aclrtFree) X(aclrtMemcpy) X(aclrtMemcpyAsync)	\
	X(aclrtLaunchKernel) X(aclrtSynchronizeStream)			\
	X(HcclCommInitClusterInfo) X(HcclAllReduce) X(HcclBroadcast)	\
	X(HcclAllGather) X(HcclReduceScatter)				\
	X(HcclGetCommAsyncError) X(HcclCommDestroy)			\
	X(npusimQueueEnqueue) X(npusimQueueRun)				\
	X(mstxMarkA) X(mstxRangeStartA) X(mstxRangeEnd)			\
	X(mstxDomainCreateA) X(mstxDomainDestroy) X(mstxDomainMarkA)	\
	X(mstxDomainRangeStartA) X(mstxDomainRangeEnd)

#define API_ENUM(name) API_##name,
#define API_NAME(name) #name,

enum api { SAMPLE_APIS(API_ENUM) API_COUNT };

static const char *const api_names[API_COUNT] = { SAMPLE_APIS(API_NAME) };
static unsigned long api_calls[API_COUNT];

/* Counts the call, reports a failure; 0 on success, -1 on failure.
 * HcclResult and aclError alike: 0 is success. */
#define CALL(fn, ...) \
	acl_check((api_calls[API_##fn]++, fn(__VA_ARGS__)), #fn)
/* Counts an mstx call, which reports no error. */
#define MSTX(fn, ...) (api_calls[API_##fn]++, fn(__VA_ARGS__))

struct device_ctx {
	int32_t id;
	aclrtStream streams[2];
	npusimQueue *queue;	/* --task-queue: the ops' way to the device */
	float *in;	/* device: a | b | ma | mb */
	float *vec;	/* device: relu(a + b) */
	float *mat;	/* device: ma * mb */
	float *red;	/* device: the collective's result (RED_N(ranks)) */
	float *host_in;
	float *host_out;
	float *host_red;
};

/* The collective each step ends with; its name as --collective takes it. */
enum collective { COLL_NONE, COLL_ALL_REDUCE, COLL_BROADCAST, COLL_ALL_GATHER,
		  COLL_REDUCE_SCATTER };

static const char *const coll_names[] = {
	[COLL_ALL_REDUCE] = "allreduce", [COLL_BROADCAST] = "broadcast",
	[COLL_ALL_GATHER] = "allgather", [COLL_REDUCE_SCATTER] = "reducescatter",
};

/* What every rank's result holds: all-gather's is every rank's vec. */
#define RED_N(ranks)	(VEC_N * (ranks))

/* A rank of a job: RANK_ID and RANK_SIZE as a launcher sets them. */
struct rank_info {
	unsigned long id;
	unsigned long size;
	HcclComm comm;
};

struct options {
	unsigned long steps;
	unsigned long step_ms;
	unsigned int devices;
	bool wait_signal;
	bool task_queue;
	enum collective coll;
	long slow_rank;		/* -1: none */
	unsigned long slow_ms;
	struct rank_info rank;
	/* --mstx: user marks each step; their messages start with this. */
	const char *mstx;
};

static volatile sig_atomic_t stop;
static volatile sig_atomic_t go;
/* TASK_QUEUE_ENABLE=0, as npusim reads it: the queue calls ACL at once. */
static bool queue_direct;

static int acl_check(aclError err, const char *what)
{
	if (err == ACL_SUCCESS)
		return 0;
	fprintf(stderr, "npu_sample: %s failed: error %d\n", what, err);
	return -1;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_go(int sig)
{
	(void)sig;
	go = 1;
}

static int install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	struct sigaction start = { .sa_handler = on_go };

	sigemptyset(&start.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL) ||
	    sigaction(SIGUSR1, &start, NULL)) {
		perror("npu_sample: sigaction");
		return -1;
	}
	return 0;
}

/* --- options ------------------------------------------------------------- */

static int parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || *end || *out > max ? -1 : 0;
}

static void usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "npu_sample: %s '%s' (usage: npu_sample [--steps N] [--step-ms M] [--devices 1-%d] [--wait-signal] [--allreduce|--collective=allreduce|broadcast|allgather|reducescatter|--no-allreduce] [--slow-rank R [--slow-ms M]] [--task-queue] [--mstx[=PREFIX]])\n",
		what, arg, MAX_DEVICES);
}

/*
 * A job's rank: RANK_SIZE and RANK_ID together.  Without RANK_SIZE the
 * sample is rank 0 of 1 whatever RANK_ID says (single-process jobs set it
 * alone, for the profiler's rank_id only).
 */
static int parse_rank(struct rank_info *r)
{
	const char *id = getenv("RANK_ID"), *size = getenv("RANK_SIZE");

	r->id = 0;
	r->size = 1;
	if (!size)
		return 0;
	if (!id || parse_ulong(size, HCCL_SIM_MAX_RANKS, &r->size) ||
	    !r->size || parse_ulong(id, r->size - 1, &r->id)) {
		fprintf(stderr, "npu_sample: bad RANK_ID '%s' or RANK_SIZE '%s' (want 0 <= RANK_ID < RANK_SIZE <= %d)\n",
			id ? id : "", size ? size : "", HCCL_SIM_MAX_RANKS);
		return -1;
	}
	return 0;
}

static int parse_value(int c, const char *arg, struct options *o)
{
	unsigned long devices, rank;

	switch (c) {
	case 's':
		return parse_ulong(arg, ULONG_MAX, &o->steps);
	case 'm':
		return parse_ulong(arg, 3600 * 1000UL, &o->step_ms);
	case 'r':
		if (parse_ulong(arg, HCCL_SIM_MAX_RANKS - 1, &rank))
			return -1;
		o->slow_rank = rank;
		return 0;
	case 'S':
		return parse_ulong(arg, 3600 * 1000UL, &o->slow_ms);
	case 'c':
		for (o->coll = COLL_ALL_REDUCE; o->coll <= COLL_REDUCE_SCATTER;
		     o->coll++)
			if (!strcmp(arg, coll_names[o->coll]))
				return 0;
		return -1;
	default:
		if (parse_ulong(arg, MAX_DEVICES, &devices) || !devices)
			return -1;
		o->devices = devices;
		return 0;
	}
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "steps", required_argument, NULL, 's' },
		{ "step-ms", required_argument, NULL, 'm' },
		{ "devices", required_argument, NULL, 'd' },
		{ "wait-signal", no_argument, NULL, 'w' },
		{ "allreduce", no_argument, NULL, 'a' },
		{ "collective", required_argument, NULL, 'c' },
		{ "no-allreduce", no_argument, NULL, 'n' },
		{ "slow-rank", required_argument, NULL, 'r' },
		{ "slow-ms", required_argument, NULL, 'S' },
		{ "mstx", optional_argument, NULL, 'x' },
		{ "task-queue", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	char what[32];
	int c, idx;

	*o = (struct options) {
		.steps = 10, .step_ms = 20, .devices = 1, .slow_rank = -1,
	};
	if (parse_rank(&o->rank))
		return -1;
	o->coll = o->rank.size > 1 ? COLL_ALL_REDUCE : COLL_NONE;
	while ((c = getopt_long(argc, argv, ":", longopts, &idx)) != -1) {
		if (c == '?' || c == ':') {
			usage_error(c == '?' ? "unknown option" :
				    "missing value for", argv[optind - 1]);
			return -1;
		}
		if (c == 'x') {
			o->mstx = optarg ? optarg : "step";
			continue;
		}
		if (c == 'w' || c == 'a' || c == 'n' || c == 'q') {
			o->wait_signal |= c == 'w';
			o->task_queue |= c == 'q';
			if (c == 'a' || c == 'n')
				o->coll = c == 'a' ? COLL_ALL_REDUCE : COLL_NONE;
			continue;
		}
		if (parse_value(c, optarg, o)) {
			snprintf(what, sizeof(what), "bad value for --%s",
				 longopts[idx].name);
			usage_error(what, optarg);
			return -1;
		}
	}
	if (optind < argc) {
		usage_error("unexpected argument", argv[optind]);
		return -1;
	}
	if (o->coll && o->devices != 1) {
		fprintf(stderr, "npu_sample: --collective=%s drives one device, not --devices %u\n",
			coll_names[o->coll], o->devices);
		return -1;
	}
	return 0;
}

/* --- per-device setup and teardown --------------------------------------- */

static void fill_inputs(float *in, unsigned long step)
{
	size_t i;

	/* Mixed signs, so relu has something to clip. */
	for (i = 0; i < IN_N; i++)
		in[i] = (float)((i + step) % 17) - 8.0f;
}

static int device_setup(struct device_ctx *d, const struct options *o)
{
	bool coll = o->coll != COLL_NONE;
	size_t red_bytes = RED_N(o->rank.size) * sizeof(float);

	d->host_in = malloc(IN_N * sizeof(float));
	d->host_out = malloc(RED_N(o->rank.size) * sizeof(float));
	d->host_red = coll ? malloc(red_bytes) : NULL;
	if (!d->host_in || !d->host_out || (coll && !d->host_red)) {
		fprintf(stderr, "npu_sample: out of memory\n");
		return -1;
	}
	if (CALL(aclrtSetDevice, d->id) ||
	    CALL(aclrtCreateStream, &d->streams[0]) ||
	    CALL(aclrtCreateStream, &d->streams[1]) ||
	    CALL(aclrtMalloc, (void **)&d->in, IN_N * sizeof(float),
		 ACL_MEM_MALLOC_HUGE_FIRST) ||
	    CALL(aclrtMalloc, (void **)&d->vec, VEC_N * sizeof(float),
		 ACL_MEM_MALLOC_HUGE_FIRST) ||
	    CALL(aclrtMalloc, (void **)&d->mat, MAT_SIZE * sizeof(float),
		 ACL_MEM_MALLOC_HUGE_FIRST) ||
	    (coll && CALL(aclrtMalloc, (void **)&d->red, red_bytes,
			  ACL_MEM_MALLOC_HUGE_FIRST)))
		return -1;
	if (!o->task_queue)
		return 0;
	/* Its worker's first call, as torch_npu's consumer thread makes it. */
	api_calls[API_aclrtSetDevice] += !queue_direct;
	return acl_check(npusimQueueCreate(d->id, 0, &d->queue), "npusimQueueCreate");
}

/* Undoes whatever part of device_setup succeeded. */
static void device_teardown(struct device_ctx *d)
{
	size_t i;

	acl_check(npusimQueueDestroy(d->queue), "npusimQueueDestroy");
	if (d->streams[0] || d->in) {
		CALL(aclrtSetDevice, d->id);
		for (i = 0; i < 2; i++)
			if (d->streams[i])
				CALL(aclrtDestroyStream, d->streams[i]);
		if (d->in)
			CALL(aclrtFree, d->in);
		if (d->vec)
			CALL(aclrtFree, d->vec);
		if (d->mat)
			CALL(aclrtFree, d->mat);
		if (d->red)
			CALL(aclrtFree, d->red);
		CALL(aclrtResetDevice, d->id);
	}
	free(d->host_in);
	free(d->host_out);
	free(d->host_red);
}

/* --- one step ------------------------------------------------------------- */

/*
 * An op through the device's queue (--task-queue), counted as the ACL call
 * its worker makes and, unless the queue calls at once, its enqueue and run.
 */
static int queued(enum api api, aclError err, const char *what)
{
	api_calls[api]++;
	api_calls[API_npusimQueueEnqueue] += !queue_direct;
	api_calls[API_npusimQueueRun] += !queue_direct;
	return acl_check(err, what);
}

#define LAUNCH(d, ...)							\
	((d)->queue ? queued(API_aclrtLaunchKernel,			\
			     npusimQueueLaunchKernel((d)->queue, __VA_ARGS__), \
			     "npusimQueueLaunchKernel") :		\
		      CALL(aclrtLaunchKernel, __VA_ARGS__))
#define COPY_ASYNC(d, ...)						\
	((d)->queue ? queued(API_aclrtMemcpyAsync,			\
			     npusimQueueMemcpyAsync((d)->queue, __VA_ARGS__), \
			     "npusimQueueMemcpyAsync") :		\
		      CALL(aclrtMemcpyAsync, __VA_ARGS__))

/* What is queued reaches the stream first, as torch_npu's sync waits. */
static int sync_stream(struct device_ctx *d, aclrtStream s)
{
	if (d->queue && acl_check(npusimQueueDrain(d->queue), "npusimQueueDrain"))
		return -1;
	return CALL(aclrtSynchronizeStream, s);
}

static double elapsed_ms(const struct timespec *from)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - from->tv_sec) * 1e3 +
	       (double)(now.tv_nsec - from->tv_nsec) / 1e6;
}

static int launch_matmuls(struct device_ctx *d, unsigned int n)
{
	struct npusim_matmul_args mm = {
		.a = d->in + 2 * VEC_N, .b = d->in + 2 * VEC_N + MAT_SIZE,
		.c = d->mat, .m = MAT_N, .n = MAT_N, .k = MAT_N,
	};
	unsigned int i;

	for (i = 0; i < n; i++)
		if (LAUNCH(d, "matmul", 4, &mm, sizeof(mm), d->streams[1]))
			return -1;
	return 0;
}

static int launch_kernels(struct device_ctx *d)
{
	struct npusim_vector_add_args add = {
		.a = d->in, .b = d->in + VEC_N, .c = d->vec, .n = VEC_N,
	};
	struct npusim_relu_args relu = { .x = d->vec, .y = d->vec, .n = VEC_N };

	if (LAUNCH(d, "vector_add", 8, &add, sizeof(add), d->streams[0]) ||
	    launch_matmuls(d, 1))
		return -1;
	return LAUNCH(d, "relu", 8, &relu, sizeof(relu), d->streams[0]);
}

/*
 * The slow rank's extra work: rounds of matmuls until slow_ms have passed.
 * The last round is left queued: the step synchronizes its stream anyway.
 */
static int slow_compute(struct device_ctx *d, const struct options *o)
{
	struct timespec from;

	clock_gettime(CLOCK_MONOTONIC, &from);
	for (;;) {
		if (launch_matmuls(d, SLOW_MATMULS))
			return -1;
		if (stop || elapsed_ms(&from) >= (double)o->slow_ms)
			return 0;
		if (sync_stream(d, d->streams[1]))
			return -1;
	}
}

/* The result must be exactly what the host computes: the work is real. */
static float expected(const float *in, size_t i)
{
	float sum = in[i] + in[VEC_N + i];

	return sum > 0.0f ? sum : 0.0f;
}

static int check_output(const struct device_ctx *d)
{
	size_t i;

	for (i = 0; i < VEC_N; i++) {
		if (d->host_out[i] != expected(d->host_in, i)) {
			fprintf(stderr, "npu_sample: device %d: wrong result at %zu\n",
				d->id, i);
			return -1;
		}
	}
	return 0;
}

/*
 * Rank r's inputs are step + r's, so what the collective gives every rank
 * is known here (small integers: exact in float, whatever the order of
 * the adds).  Leaves it in host_out; returns how many elements this rank
 * gets, from *from on.
 */
static size_t coll_expected(struct device_ctx *d, unsigned long step,
			    const struct options *o, size_t *from)
{
	unsigned long r, n = o->rank.size;
	size_t i;
	float v;

	for (r = 0; r < n; r++) {
		fill_inputs(d->host_in, step + r);
		for (i = 0; i < VEC_N; i++) {
			v = expected(d->host_in, i);
			if (o->coll == COLL_ALL_GATHER)
				d->host_out[r * VEC_N + i] = v;
			else if (o->coll != COLL_BROADCAST || !r)
				d->host_out[i] = (r ? d->host_out[i] : 0.0f) + v;
		}
	}
	*from = o->coll == COLL_REDUCE_SCATTER ? o->rank.id * (VEC_N / n) : 0;
	return o->coll == COLL_ALL_GATHER ? RED_N(n) :
	       o->coll == COLL_REDUCE_SCATTER ? VEC_N / n : VEC_N;
}

static int check_collective(struct device_ctx *d, unsigned long step,
			    const struct options *o)
{
	size_t from, n = coll_expected(d, step, o, &from), i;

	for (i = 0; i < n; i++)
		if (d->host_red[i] != d->host_out[from + i]) {
			fprintf(stderr, "npu_sample: wrong %s result at %zu\n",
				coll_names[o->coll], i);
			return -1;
		}
	return 0;
}

/*
 * The gradient exchange, over every rank's relu output.  A broadcast (from
 * rank 0) works in place, as HCCL's does: vec's copy to the host for
 * check_output is queued before it.  A reduce-scatter gives each rank
 * VEC_N / ranks elements of the sum.
 */
static int collective(struct device_ctx *d, const struct options *o)
{
	HcclComm comm = o->rank.comm;
	aclrtStream s = d->streams[0];
	unsigned long ranks = o->rank.size;
	size_t n = VEC_N;
	float *result = d->red;
	HcclResult async;
	int err;

	switch (o->coll) {
	case COLL_BROADCAST:
		result = d->vec;
		err = CALL(HcclBroadcast, d->vec, VEC_N, HCCL_DATA_TYPE_FP32, 0,
			   comm, s);
		break;
	case COLL_ALL_GATHER:
		n = RED_N(ranks);
		err = CALL(HcclAllGather, d->vec, d->red, VEC_N,
			   HCCL_DATA_TYPE_FP32, comm, s);
		break;
	case COLL_REDUCE_SCATTER:
		n = VEC_N / ranks;
		err = CALL(HcclReduceScatter, d->vec, d->red, n,
			   HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, s);
		break;
	default:
		err = CALL(HcclAllReduce, d->vec, d->red, VEC_N,
			   HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, s);
		break;
	}
	if (err ||
	    CALL(aclrtMemcpyAsync, d->host_red, n * sizeof(float), result,
		 n * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST, s) ||
	    sync_stream(d, s) ||
	    CALL(HcclGetCommAsyncError, comm, &async))
		return -1;
	return acl_check(async, "the collective's task");
}

static int step_calls(struct device_ctx *d, unsigned long step,
		      const struct options *o)
{
	bool slow = o->slow_rank == (long)o->rank.id;

	fill_inputs(d->host_in, step + o->rank.id);
	if (CALL(aclrtSetDevice, d->id) ||
	    CALL(aclrtMemcpy, d->in, IN_N * sizeof(float), d->host_in,
		 IN_N * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE) ||
	    launch_kernels(d) || (slow && slow_compute(d, o)) ||
	    COPY_ASYNC(d, d->host_out, VEC_N * sizeof(float), d->vec,
		       VEC_N * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST,
		       d->streams[0]) ||
	    sync_stream(d, d->streams[1]) ||
	    (o->coll && collective(d, o)) ||
	    sync_stream(d, d->streams[0]) ||
	    check_output(d))
		return -1;
	return o->coll ? check_collective(d, step, o) : 0;
}

/*
 * --mstx: a step's user marks, as a training script makes them: a mark as
 * it begins and a range around it, each also in the sample's own domain.
 * The message is the prefix and the step's number, cut at 255 bytes.
 */
static mstxRangeId mstx_begin(const struct options *o, mstxDomainHandle_t dom,
			      unsigned long step, aclrtStream s,
			      mstxRangeId *kernels)
{
	char msg[256];
	mstxRangeId id;

	snprintf(msg, sizeof(msg), "%s %lu", o->mstx, step);
	MSTX(mstxMarkA, msg, NULL);
	MSTX(mstxDomainMarkA, dom, msg, NULL);
	id = MSTX(mstxRangeStartA, msg, s);
	*kernels = MSTX(mstxDomainRangeStartA, dom, msg, NULL);
	return id;
}

static int device_step(struct device_ctx *d, unsigned long step,
		       const struct options *o, mstxDomainHandle_t dom)
{
	mstxRangeId range = 0, kernels = 0;
	int ret;

	if (o->mstx)
		range = mstx_begin(o, dom, step, d->streams[0], &kernels);
	ret = step_calls(d, step, o);
	if (o->mstx) {
		MSTX(mstxDomainRangeEnd, dom, kernels);
		MSTX(mstxRangeEnd, range);
	}
	return ret;
}

/* A signal cuts the wait short; the loop then sees stop and ends. */
static void pad_step(const struct timespec *start, unsigned long step_ms)
{
	struct timespec until = *start;

	until.tv_sec += step_ms / 1000;
	until.tv_nsec += (long)(step_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until,
					NULL) == EINTR)
		;
}

/*
 * --wait-signal: the steps begin at SIGUSR1, so a profiler can open its
 * window first and see a known number of calls (tests, benchmarks).
 */
static void wait_for_go(void)
{
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	printf("npu_sample waiting for SIGUSR1\n");
	fflush(stdout);
	while (!go && !stop)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static int run_steps(struct device_ctx *devs, const struct options *o)
{
	struct timespec start, begin;
	mstxDomainHandle_t dom = NULL;
	unsigned long step;
	unsigned int i;
	int ret = 0;

	if (o->wait_signal)
		wait_for_go();
	if (o->mstx)
		dom = MSTX(mstxDomainCreateA, "npu_sample");
	clock_gettime(CLOCK_MONOTONIC, &begin);
	for (step = 0; !stop && (!o->steps || step < o->steps); step++) {
		clock_gettime(CLOCK_MONOTONIC, &start);
		/* A stop may leave a collective without some ranks. */
		for (i = 0; i < o->devices; i++)
			if (device_step(&devs[i], step, o, dom)) {
				ret = stop ? 0 : -1;
				goto out;
			}
		pad_step(&start, o->step_ms);
	}
	printf("steps %lu loop_ms %.3f\n", step, elapsed_ms(&begin));
out:
	if (o->mstx)
		MSTX(mstxDomainDestroy, dom);
	return ret;
}

/* --- main ---------------------------------------------------------------- */

static void print_calls(void)
{
	int i;

	for (i = 0; i < API_COUNT; i++)
		if (api_calls[i])
			printf("calls %s %lu\n", api_names[i], api_calls[i]);
}

static int check_devices(unsigned int wanted)
{
	uint32_t count;

	if (CALL(aclrtGetDeviceCount, &count))
		return 1;
	if (wanted > count) {
		fprintf(stderr, "npu_sample: --devices %u, but only %u present\n",
			wanted, count);
		return 2;
	}
	return 0;
}

/* The job's ranks meet through the rank table their launcher wrote. */
static int comm_init(struct options *o)
{
	const char *table = getenv("RANK_TABLE_FILE");
	struct rank_info *r = &o->rank;

	if (!table || !*table) {
		fprintf(stderr, "npu_sample: --collective=%s needs RANK_TABLE_FILE (tools/npusim/sample/run_ranks.sh sets it)\n",
			coll_names[o->coll]);
		return -1;
	}
	return CALL(HcclCommInitClusterInfo, table, r->id, &r->comm);
}

static int run(struct options *o)
{
	struct device_ctx devs[MAX_DEVICES] = { 0 };
	unsigned int i;
	int ret;

	ret = check_devices(o->devices);
	for (i = 0; i < o->devices && !ret; i++) {
		devs[i].id = i;
		if (device_setup(&devs[i], o))
			ret = 1;
	}
	if (!ret && o->coll && comm_init(o))
		ret = 1;
	if (!ret && run_steps(devs, o))
		ret = 1;
	if (o->rank.comm && CALL(HcclCommDestroy, o->rank.comm))
		ret = 1;
	for (i = 0; i < o->devices; i++)
		device_teardown(&devs[i]);
	return ret;
}

int main(int argc, char **argv)
{
	struct options o;
	int ret;

	if (parse_options(argc, argv, &o))
		return 2;
	queue_direct = getenv("TASK_QUEUE_ENABLE") &&
		       !strcmp(getenv("TASK_QUEUE_ENABLE"), "0");
	if (install_signals() || CALL(aclInit, NULL))
		return 1;
	/* After aclInit: by now the profiling agent is listening. */
	printf("npu_sample pid=%d\n", (int)getpid());
	fflush(stdout);

	ret = run(&o);
	if (CALL(aclFinalize) && !ret)
		ret = 1;
	print_calls();
	return ret;
}
