/* SPDX-License-Identifier: MIT */
/*
 * What npusim's source files share.  Nothing here leaves the library: a
 * profiler probes libnpusim.so by symbol, so only the ACL API and the
 * observer hook may be visible there.
 */
#ifndef NPUSIM_INTERNAL_H
#define NPUSIM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <acl/acl.h>
#include <npusim/npusim_ioctl.h>
#include <npusim/npusim_prof.h>
#include <npusim/npusim_task.h>

#pragma GCC visibility push(hidden)

#define NPUSIM_MAX_DEVICES	8
#define NPUSIM_DEFAULT_DEVICES	2

/* --- kernels (npusim_kernels.c) ----------------------------------------- */

struct cann_tensor_info;

struct npusim_kernel {
	const char *name;
	enum npusim_task_kind kind;
	const char *op_type;	/* the op's type as CANN names it; NULL: none */
	size_t args_size;
	bool (*valid)(const void *args);
	void (*run)(const void *args);
	/* The op's tensors, for its tensor_info; NULL: shapes unknown. */
	void (*shapes)(const void *args, struct cann_tensor_info *ti);
};

/* The task aclrtMemcpyAsync enqueues; not launchable by name. */
struct npusim_copy_args {
	void *dst;
	const void *src;
	size_t count;
	aclrtMemcpyKind kind;	/* for the profiler's memcpy_info */
};

extern const struct npusim_kernel npusim_copy_kernel;

/* The task npusimLaunchHostTask enqueues: another library's work. */
struct npusim_host_args {
	npusim_host_task_fn run;
	void *arg;
};

extern const struct npusim_kernel npusim_host_kernel;

const struct npusim_kernel *npusim_kernel_find(const char *name);

/* --- devices, streams, tasks (npusim_device.c) -------------------------- */

struct npusim_task;

struct npusim_stream {
	struct npusim_stream *next;
	uint32_t id;
	uint32_t last_task;	/* newest task submitted on it, 0 = none */
	uint64_t tasks;		/* submitted on it: its task ids and flips */
};

/* Where a submitted task went: what the runtime reports of it. */
struct npusim_submitted {
	uint32_t device;
	uint32_t stream;
	uint16_t task_id;
	uint16_t flip;
	bool wrapped;		/* its task id is the stream's first of a flip */
};

struct npusim_device {
	pthread_mutex_t ctl;	/* serialises bring-up against reset */
	pthread_mutex_t lock;	/* everything below */
	pthread_cond_t work;	/* tasks queued, or stopping */
	pthread_cond_t done;	/* done_task advanced */
	bool up;		/* written with ctl held too */
	bool stopping;
	uint64_t gen;		/* bumped at each bring-up */
	pthread_t worker;
	struct npusim_task *head;
	struct npusim_task **tail;
	struct npusim_stream *streams;
	uint32_t last_stream;
	uint32_t last_task;
	uint32_t done_task;
	uint64_t last_cnt;	/* the worker's: its last device counter stamp */
};

struct npusim_device *npusim_dev_get(uint32_t id);
uint32_t npusim_dev_id(const struct npusim_device *dev);
aclError npusim_dev_up(struct npusim_device *dev, uint64_t *gen);
void npusim_dev_down(struct npusim_device *dev);
bool npusim_dev_is_current(struct npusim_device *dev, uint64_t gen);
aclError npusim_dev_sync(struct npusim_device *dev);

aclError npusim_stream_create(struct npusim_device *dev, aclrtStream *out);
aclError npusim_stream_destroy(struct npusim_device *dev, aclrtStream h);
aclError npusim_stream_sync(struct npusim_device *dev, aclrtStream h);
/* *sub: where the task went, for the runtime's reports. */
aclError npusim_stream_submit(struct npusim_device *dev, aclrtStream h,
			      const struct npusim_kernel *kernel,
			      const void *args, struct npusim_submitted *sub);
/* The device counter at CLOCK_MONOTONIC_RAW raw_ns (npusim_prof.h). */
uint64_t npusim_dev_counter(uint32_t device, uint64_t raw_ns);

/* --- process state and the calling thread's device (npusim_runtime.c) --- */

/* The ACL calls, each reported as an acl-level API (npusim_report.c). */
#define NPUSIM_ACL_APIS(X)						\
	X(aclInit, OTHERS) X(aclFinalize, OTHERS)			\
	X(aclrtSetDevice, RTS) X(aclrtResetDevice, RTS)		\
	X(aclrtGetDeviceCount, RTS) X(aclrtCreateStream, RTS)		\
	X(aclrtDestroyStream, RTS) X(aclrtMalloc, RTS) X(aclrtFree, RTS) \
	X(aclrtMemcpy, RTS) X(aclrtMemcpyAsync, RTS)			\
	X(aclrtSynchronizeStream, RTS) X(aclrtSynchronizeDevice, RTS)	\
	X(aclrtLaunchKernel, RTS)

#define NPUSIM_ACL_ENUM(name, group) NPUSIM_ACL_##name,
enum npusim_acl { NPUSIM_ACL_APIS(NPUSIM_ACL_ENUM) NPUSIM_ACL_NONE };
#undef NPUSIM_ACL_ENUM

/*
 * Every API call runs between enter and leave, so aclFinalize cannot pull
 * the runtime from under it.  enter fails when aclInit has not run; the
 * call is reported as api (NPUSIM_ACL_NONE: not an ACL call) at leave.
 */
aclError npusim_rt_enter(enum npusim_acl api);
void npusim_rt_leave(void);
/* The device aclrtSetDevice made current on this thread, if still up. */
aclError npusim_rt_current(struct npusim_device **dev);

/* --- simulated device memory (npusim_blocks.c) -------------------------- */

aclError npusim_mem_alloc(struct npusim_device *dev, void **out, size_t size,
			  aclrtMemMallocPolicy policy);
/* ACL_ERROR_INVALID_PARAM for a pointer npusim_mem_alloc never gave out. */
aclError npusim_mem_free(void *ptr);
void npusim_mem_release(uint32_t device);

/* --- the ACL memory calls (npusim_mem.c) -------------------------------- */

/* The argument checks aclrtMemcpy and aclrtMemcpyAsync share. */
bool npusim_copy_valid(const void *dst, size_t dest_max, const void *src,
		       size_t count, aclrtMemcpyKind kind);

/* --- driver node (npusim_driver.c) -------------------------------------- */

int npusim_drv_open(void);
void npusim_drv_ioctl(unsigned long cmd, struct npusim_ioctl_arg *arg);

/* --- observer (npusim_prof.c) ------------------------------------------- */

void npusim_prof_report(const struct npusim_task_record *rec);

/* --- what the runtime reports to its profiling (npusim_report.c) -------- */

/* A reported call's begin on the host clock; 0 outside a window. */
uint64_t npusim_rep_begin(void);
void npusim_rep_acl(enum npusim_acl api, uint64_t begin);
/*
 * The runtime API of a submit that began at begin: the task's task_track
 * (after a FLIP_TASK one where its ids wrapped), a copy's memcpy_info.
 */
void npusim_rep_submit(uint64_t begin, const struct npusim_kernel *kernel,
		       const char *name, const struct npusim_submitted *sub,
		       size_t copy_bytes, aclrtMemcpyKind copy_kind);
/* The node-level launch of an op that began at begin, with its info. */
void npusim_rep_node(uint64_t begin, const struct npusim_kernel *kernel,
		     uint32_t block_dim, const void *args);

static inline uint64_t npusim_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

#pragma GCC visibility pop

#endif
