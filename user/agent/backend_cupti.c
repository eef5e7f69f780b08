// SPDX-License-Identifier: MIT
/*
 * Device backend for NVIDIA GPUs: CUPTI's activity API reports each kernel,
 * memcpy and memset, and each runtime and driver API call with the
 * correlation id of the tasks it launched.  The driver and CUPTI are loaded
 * at run time: the agent builds and loads where there is no CUDA at all.
 */
#include <errno.h>

#include "msprof/agent_backend.h"

#define CUPTI_BACKEND	"cupti"

#ifdef MSPROF_HAVE_CUPTI
#include <dlfcn.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "common/clock.h"
#include "cupti_window.h"

/* Big enough that CUPTI asks seldom, small enough to hand back often. */
#define ACT_BUF_SIZE	(4u << 20)

/* A function of a dlopen()ed library, typed as the headers declare it. */
#define LIB_FN(handle, fn)	((__typeof__(&fn))dlsym(handle, #fn))

static const char *const cupti_libs[] = {
	"libcupti.so",
	"libcupti.so.13",
	"libcupti.so.12",
	"/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
	"/usr/local/cuda/lib64/libcupti.so",
};

/*
 * CONCURRENT_KERNEL rather than KERNEL, which would serialise the task's
 * kernels.  DRIVER as well as RUNTIME: a memcpy carries the correlation id
 * of its driver call, and kernels launched through the driver API (JIT
 * compilers do) have no runtime call at all.
 */
static const CUpti_ActivityKind cupti_kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
	CUPTI_ACTIVITY_KIND_MEMCPY,
	CUPTI_ACTIVITY_KIND_MEMSET,
	CUPTI_ACTIVITY_KIND_RUNTIME,
	CUPTI_ACTIVITY_KIND_DRIVER,
};

#define NR_KINDS (sizeof(cupti_kinds) / sizeof(cupti_kinds[0]))

struct cupti_fns {
	__typeof__(&cuptiSetThreadIdType) cuptiSetThreadIdType;
	__typeof__(&cuptiActivityRegisterCallbacks) cuptiActivityRegisterCallbacks;
	__typeof__(&cuptiActivityEnable) cuptiActivityEnable;
	__typeof__(&cuptiActivityDisable) cuptiActivityDisable;
	__typeof__(&cuptiActivityFlushAll) cuptiActivityFlushAll;
	__typeof__(&cuptiActivityGetNextRecord) cuptiActivityGetNextRecord;
	__typeof__(&cuptiActivityGetNumDroppedRecords) cuptiActivityGetNumDroppedRecords;
	__typeof__(&cuptiGetTimestamp) cuptiGetTimestamp;
};

/*
 * CUPTI's buffer callbacks are handed no context pointer, and CUPTI serves
 * one activity client per process anyway: the backend's state has to be
 * this one static instance.
 */
static struct cupti_backend {
	struct cupti_fns fn;
	void *cupti;			/* libcupti, never unloaded once used */
	pthread_mutex_t lock;		/* the callbacks run on CUPTI's threads */
	struct cupti_window win;
	uint64_t offset;		/* CUPTI's clock - CLOCK_MONOTONIC */
	bool warned;			/* a GPU but no CUPTI: said once */
} cupti = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

static int cupti_errno(CUptiResult r)
{
	switch (r) {
	case CUPTI_SUCCESS:
		return 0;
	case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
		return -EBUSY;	/* another CUPTI client: a profiler in the task */
	default:
		return -EIO;
	}
}

static int find_cudart(struct dl_phdr_info *info, size_t size, void *found)
{
	(void)size;
	return *(bool *)found = strstr(info->dlpi_name, "libcudart") != NULL;
}

/*
 * True when the process uses CUDA and the driver sees a device.  The
 * driver is never closed again: cuInit() may have started its threads.
 */
static bool cuda_device_present(void)
{
	void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	__typeof__(&cuDeviceGetCount) count;
	__typeof__(&cuInit) init;
	bool cudart = false;
	int n = 0;

	/* The runtime loads the driver at its first call, maybe after start. */
	if (!cuda) {
		dl_iterate_phdr(find_cudart, &cudart);
		if (!cudart)
			return false;
		cuda = dlopen("libcuda.so.1", RTLD_LAZY);
		if (!cuda)
			return false;
	}
	init = LIB_FN(cuda, cuInit);
	count = LIB_FN(cuda, cuDeviceGetCount);
	return init && count && init(0) == CUDA_SUCCESS &&
	       count(&n) == CUDA_SUCCESS && n > 0;
}

/*
 * A libcupti the task already loaded comes first (a profiler in the task
 * uses its own): two copies in one process would both hook the driver.
 */
static void *cupti_dlopen(void)
{
	static const int modes[] = { RTLD_LAZY | RTLD_NOLOAD, RTLD_LAZY };
	size_t m, i;
	void *h;

	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		for (i = 0; i < sizeof(cupti_libs) / sizeof(cupti_libs[0]); i++) {
			h = dlopen(cupti_libs[i], modes[m]);
			if (h)
				return h;
		}
	}
	return NULL;
}

/* Sets fns->fn to libcupti's fn; false when it has none. */
#define CUPTI_FN(fns, h, fn)	(((fns)->fn = LIB_FN(h, fn)) != NULL)

static void *cupti_load(struct cupti_fns *fns)
{
	void *h = cupti_dlopen();

	if (!h)
		return NULL;
	if (CUPTI_FN(fns, h, cuptiSetThreadIdType) &&
	    CUPTI_FN(fns, h, cuptiActivityRegisterCallbacks) &&
	    CUPTI_FN(fns, h, cuptiActivityEnable) &&
	    CUPTI_FN(fns, h, cuptiActivityDisable) &&
	    CUPTI_FN(fns, h, cuptiActivityFlushAll) &&
	    CUPTI_FN(fns, h, cuptiActivityGetNextRecord) &&
	    CUPTI_FN(fns, h, cuptiActivityGetNumDroppedRecords) &&
	    CUPTI_FN(fns, h, cuptiGetTimestamp))
		return h;
	/* Nothing of it has run yet. */
	dlclose(h);
	return NULL;
}

static int cupti_open(void **state)
{
	struct cupti_backend *cb = &cupti;

	if (!cuda_device_present())
		return -ENODEV;
	cb->cupti = cupti_load(&cb->fn);
	if (!cb->cupti) {
		/* A GPU task profiled without its GPU deserves one word. */
		if (!cb->warned)
			agent_err("%s: no usable libcupti: no GPU data (put CUDA's CUPTI lib64 on LD_LIBRARY_PATH)",
				  CUPTI_BACKEND);
		cb->warned = true;
		return -ENODEV;
	}
	cupti_window_init(&cb->win);
	*state = cb;
	return 0;
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size,
				      size_t *max_records)
{
	/* Without a buffer CUPTI drops the records, and counts them. */
	*buf = aligned_alloc(ACTIVITY_RECORD_ALIGNMENT, ACT_BUF_SIZE);
	*size = *buf ? ACT_BUF_SIZE : 0;
	*max_records = 0;	/* as many as fit */
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream,
				      uint8_t *buf, size_t size, size_t valid)
{
	struct cupti_backend *cb = &cupti;
	CUpti_Activity *act = NULL;
	size_t dropped = 0;

	(void)size;
	pthread_mutex_lock(&cb->lock);
	/* Anything but success ends the buffer: its end, or a bad record. */
	while (cb->fn.cuptiActivityGetNextRecord(buf, valid, &act) ==
	       CUPTI_SUCCESS)
		cupti_window_keep(&cb->win, act);
	if (cb->fn.cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) ==
	    CUPTI_SUCCESS)
		cb->win.dropped += dropped;
	pthread_mutex_unlock(&cb->lock);
	free(buf);
}

/*
 * CUPTI stamps records with its own clock: CLOCK_REALTIME on Linux, GPU
 * times mapped onto it.  That differs from CLOCK_MONOTONIC by a constant
 * unless the wall clock is stepped during the window (NTP's slewing moves
 * both alike), so one reading between two monotonic ones gives the offset,
 * off by at most half their distance.
 */
static int clock_offset(struct cupti_backend *cb)
{
	uint64_t before, after, ts;
	CUptiResult r;

	before = clock_ns(CLOCK_MONOTONIC);
	r = cb->fn.cuptiGetTimestamp(&ts);
	after = clock_ns(CLOCK_MONOTONIC);
	if (r != CUPTI_SUCCESS)
		return cupti_errno(r);
	cb->offset = ts - (before + (after - before) / 2);
	return 0;
}

static int cupti_start(void *state)
{
	struct cupti_backend *cb = state;
	CUptiResult r;
	size_t i;
	int err;

	/* Records of a window that never got flushed are stale now. */
	pthread_mutex_lock(&cb->lock);
	cupti_window_free(&cb->win);
	pthread_mutex_unlock(&cb->lock);

	err = clock_offset(cb);
	if (err)
		return err;
	/* The tid the task sees, as msprof's host records name the caller. */
	r = cb->fn.cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
	if (r == CUPTI_SUCCESS)
		r = cb->fn.cuptiActivityRegisterCallbacks(buffer_requested,
							  buffer_completed);
	for (i = 0; r == CUPTI_SUCCESS && i < NR_KINDS; i++) {
		r = cb->fn.cuptiActivityEnable(cupti_kinds[i]);
		if (r != CUPTI_SUCCESS) {
			while (i--)
				cb->fn.cuptiActivityDisable(cupti_kinds[i]);
			break;
		}
	}
	return cupti_errno(r);
}

static int cupti_stop(void *state)
{
	struct cupti_backend *cb = state;
	CUptiResult r = CUPTI_SUCCESS, ret;
	size_t i;

	/* Disabled first, so that the forced flush ends the window's records. */
	for (i = 0; i < NR_KINDS; i++) {
		ret = cb->fn.cuptiActivityDisable(cupti_kinds[i]);
		r = r ?: ret;
	}
	ret = cb->fn.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	return cupti_errno(r ?: ret);
}

static int cupti_flush(void *state, const char *dir)
{
	struct cupti_backend *cb = state;
	struct cupti_window w;
	size_t unlinked;
	int err;

	/* Take the window away so CUPTI's threads never wait on file I/O. */
	pthread_mutex_lock(&cb->lock);
	w = cb->win;
	cupti_window_init(&cb->win);
	pthread_mutex_unlock(&cb->lock);

	err = cupti_window_write(&w, cb->offset, dir, &unlinked);
	err = devdata_stats_write(dir, CUPTI_BACKEND,
				"\"tasks\":%zu,\"lost\":%" PRIu64
				",\"dropped\":%" PRIu64 ",\"unlinked\":%zu",
				w.tasks.nr, w.lost + w.tasks.lost, w.dropped,
				unlinked) ?: err;
	cupti_window_free(&w);
	return err;
}

const struct msprof_backend msprof_backend_cupti = {
	.name = CUPTI_BACKEND,
	.open = cupti_open,
	.start = cupti_start,
	.stop = cupti_stop,
	.flush = cupti_flush,
};
#else
/* Built without CUDA's headers: no task is ever seen to use a GPU. */
static int cupti_open(void **state)
{
	(void)state;
	return -ENODEV;
}

const struct msprof_backend msprof_backend_cupti = {
	.name = CUPTI_BACKEND,
	.open = cupti_open,
};
#endif
