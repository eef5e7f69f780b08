// SPDX-License-Identifier: MIT
/*
 * The simulated devices: one worker thread per device runs the device's
 * tasks from a single FIFO, which keeps every stream in order for free.
 * Task and stream ids keep counting across resets and re-initialisation,
 * so a profiler never sees one id name two different tasks.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npusim_internal.h"

struct npusim_task {
	struct npusim_task *next;
	const struct npusim_kernel *kernel;
	uint32_t seq;		/* per device, from 1: what synchronizes wait for */
	bool wrapped;		/* its stream's ids wrapped at it */
	struct npusim_task_record rec;
	_Alignas(max_align_t) unsigned char args[];
};

static struct npusim_device devices[NPUSIM_MAX_DEVICES] = {
	[0 ... NPUSIM_MAX_DEVICES - 1] = {
		.ctl = PTHREAD_MUTEX_INITIALIZER,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.work = PTHREAD_COND_INITIALIZER,
		.done = PTHREAD_COND_INITIALIZER,
	},
};

struct npusim_device *npusim_dev_get(uint32_t id)
{
	return &devices[id];
}

uint32_t npusim_dev_id(const struct npusim_device *dev)
{
	return dev - devices;
}

/* --- the device clock --------------------------------------------------- */

/* How much longer than the host's raw clock each device has been counting. */
#define DEV_BOOT_NS(device)	(((uint64_t)(device) + 1) * 1000003000000ull)

uint64_t npusim_dev_counter(uint32_t device, uint64_t raw_ns)
{
	return (raw_ns + DEV_BOOT_NS(device)) / (1000 / NPUSIM_HWTS_MHZ);
}

__attribute__((visibility("default")))
int npusimReadDeviceClock(uint32_t device, uint64_t *raw_ns, uint64_t *cnt)
{
	struct timespec ts;

	if (device >= NPUSIM_MAX_DEVICES || !raw_ns || !cnt)
		return -EINVAL;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	*raw_ns = (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
	*cnt = npusim_dev_counter(device, *raw_ns);
	return 0;
}

/*
 * The worker's stamps only go forward, a tick at least each: a stream's
 * flip then lies after the task before it and at or before its own.
 */
static uint64_t dev_stamp(struct npusim_device *dev)
{
	struct timespec ts;
	uint64_t c;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	c = npusim_dev_counter(npusim_dev_id(dev),
			       (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec);
	if (c <= dev->last_cnt)
		c = dev->last_cnt + 1;
	dev->last_cnt = c;
	return c;
}

/* --- worker ------------------------------------------------------------- */

/* NULL once the device is stopping and its queue is drained. */
static struct npusim_task *dev_next_task(struct npusim_device *dev)
{
	struct npusim_task *t;

	pthread_mutex_lock(&dev->lock);
	while (!dev->head && !dev->stopping)
		pthread_cond_wait(&dev->work, &dev->lock);
	t = dev->head;
	if (t) {
		dev->head = t->next;
		if (!dev->head)
			dev->tail = &dev->head;
	}
	pthread_mutex_unlock(&dev->lock);
	return t;
}

static void dev_complete(struct npusim_device *dev, uint32_t task_id)
{
	pthread_mutex_lock(&dev->lock);
	dev->done_task = task_id;
	pthread_cond_broadcast(&dev->done);
	pthread_mutex_unlock(&dev->lock);
}

/*
 * The observer runs before the task counts as done, so a synchronize that
 * returns guarantees the profiler has seen every task it waited for.
 */
static void *dev_worker(void *arg)
{
	struct npusim_device *dev = arg;
	struct npusim_task *t;
	char name[16];

	/* Named by itself: naming another thread opens a /proc file. */
	snprintf(name, sizeof(name), "npusim-dev%u", npusim_dev_id(dev));
	pthread_setname_np(pthread_self(), name);
	while ((t = dev_next_task(dev))) {
		if (t->wrapped)
			t->rec.flip_cnt = dev_stamp(dev);
		t->rec.start_cnt = dev_stamp(dev);
		t->kernel->run(t->args);
		t->rec.end_cnt = dev_stamp(dev);
		npusim_prof_report(&t->rec);
		dev_complete(dev, t->seq);
		free(t);
	}
	return NULL;
}

/* Under dev->lock: wait until the worker has finished task_id. */
static void dev_wait(struct npusim_device *dev, uint32_t task_id)
{
	while (dev->done_task < task_id)
		pthread_cond_wait(&dev->done, &dev->lock);
}

/* --- bring-up and reset ------------------------------------------------- */

/*
 * The worker blocks every signal: the application's handlers belong on
 * the application's threads, not on a library's.
 */
static int dev_spawn(struct npusim_device *dev)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&dev->worker, NULL, dev_worker, dev);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

/* The queue is empty whenever the device is down; tail just needs aiming. */
static aclError dev_start(struct npusim_device *dev)
{
	pthread_mutex_lock(&dev->lock);
	dev->head = NULL;
	dev->tail = &dev->head;
	dev->stopping = false;
	pthread_mutex_unlock(&dev->lock);
	if (dev_spawn(dev))
		return ACL_ERROR_BAD_ALLOC;
	pthread_mutex_lock(&dev->lock);
	dev->up = true;
	dev->gen++;
	pthread_mutex_unlock(&dev->lock);
	return ACL_SUCCESS;
}

/* Brings dev up unless it is; *gen identifies this bring-up. */
aclError npusim_dev_up(struct npusim_device *dev, uint64_t *gen)
{
	aclError ret = ACL_SUCCESS;

	pthread_mutex_lock(&dev->ctl);
	if (!dev->up)
		ret = dev_start(dev);
	*gen = dev->gen;
	pthread_mutex_unlock(&dev->ctl);
	return ret;
}

static void free_streams(struct npusim_stream *s)
{
	struct npusim_stream *next;

	for (; s; s = next) {
		next = s->next;
		free(s);
	}
}

/* Runs what is queued, joins the worker and drops the device's streams. */
void npusim_dev_down(struct npusim_device *dev)
{
	struct npusim_stream *streams;

	pthread_mutex_lock(&dev->ctl);
	if (dev->up) {
		pthread_mutex_lock(&dev->lock);
		dev->up = false;
		dev->stopping = true;
		pthread_cond_signal(&dev->work);
		pthread_mutex_unlock(&dev->lock);
		pthread_join(dev->worker, NULL);
		pthread_mutex_lock(&dev->lock);
		streams = dev->streams;
		dev->streams = NULL;
		pthread_mutex_unlock(&dev->lock);
		free_streams(streams);
	}
	pthread_mutex_unlock(&dev->ctl);
}

bool npusim_dev_is_current(struct npusim_device *dev, uint64_t gen)
{
	bool ret;

	pthread_mutex_lock(&dev->lock);
	ret = dev->up && dev->gen == gen;
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

aclError npusim_dev_sync(struct npusim_device *dev)
{
	struct npusim_ioctl_arg arg = { .device = npusim_dev_id(dev) };
	aclError ret = ACL_ERROR_CONTEXT_NULL;

	pthread_mutex_lock(&dev->lock);
	if (dev->up) {
		npusim_drv_ioctl(NPUSIM_IOC_SYNC, &arg);
		dev_wait(dev, dev->last_task);
		ret = ACL_SUCCESS;
	}
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

/* --- streams ------------------------------------------------------------ */

/*
 * Under dev->lock: the link to h's stream, or NULL.  Handles are only
 * compared, never dereferenced, so a stale or made-up one cannot crash us.
 */
static struct npusim_stream **stream_link(struct npusim_device *dev,
					  aclrtStream h)
{
	struct npusim_stream **link;

	for (link = &dev->streams; *link; link = &(*link)->next)
		if (*link == h)
			return link;
	return NULL;
}

/* Under dev->lock: a device reset since the caller checked wins. */
static aclError stream_check(struct npusim_device *dev,
			     struct npusim_stream **link)
{
	if (!dev->up)
		return ACL_ERROR_CONTEXT_NULL;
	return link ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

aclError npusim_stream_create(struct npusim_device *dev, aclrtStream *out)
{
	struct npusim_stream *s;
	aclError ret = ACL_ERROR_CONTEXT_NULL;

	s = calloc(1, sizeof(*s));
	if (!s)
		return ACL_ERROR_BAD_ALLOC;
	pthread_mutex_lock(&dev->lock);
	if (dev->up) {
		s->id = ++dev->last_stream;
		s->next = dev->streams;
		dev->streams = s;
		*out = s;
		ret = ACL_SUCCESS;
	}
	pthread_mutex_unlock(&dev->lock);
	if (ret)
		free(s);
	return ret;
}

/* Lets the stream's tasks finish first: they write the caller's buffers. */
aclError npusim_stream_destroy(struct npusim_device *dev, aclrtStream h)
{
	struct npusim_stream **link, *s = NULL;
	aclError ret;

	pthread_mutex_lock(&dev->lock);
	link = stream_link(dev, h);
	ret = stream_check(dev, link);
	if (!ret) {
		s = *link;
		*link = s->next;
		dev_wait(dev, s->last_task);
	}
	pthread_mutex_unlock(&dev->lock);
	free(s);
	return ret;
}

aclError npusim_stream_sync(struct npusim_device *dev, aclrtStream h)
{
	struct npusim_ioctl_arg arg = { .device = npusim_dev_id(dev) };
	struct npusim_stream **link;
	aclError ret;

	pthread_mutex_lock(&dev->lock);
	link = stream_link(dev, h);
	ret = stream_check(dev, link);
	if (!ret) {
		arg.stream = (*link)->id;
		npusim_drv_ioctl(NPUSIM_IOC_SYNC, &arg);
		/* By task id: the stream may be destroyed meanwhile. */
		dev_wait(dev, (*link)->last_task);
	}
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

/*
 * Under dev->lock: the ioctl goes out before the worker can see the task.
 * Its task id is the stream's, 16 bits as a real device's, with the
 * stream's flips (wraps) above them in the ioctl's, as CANN's runtime
 * keeps them.
 */
static void stream_enqueue(struct npusim_device *dev, struct npusim_stream *s,
			   struct npusim_task *t, struct npusim_submitted *sub)
{
	uint16_t task_id = (uint16_t)s->tasks, flip = (uint16_t)(s->tasks >> 16);
	struct npusim_ioctl_arg arg = {
		.device = npusim_dev_id(dev),
		.stream = s->id,
		.task_id = (uint32_t)flip << 16 | task_id,
	};

	t->seq = ++dev->last_task;
	t->wrapped = s->tasks && !task_id;
	t->rec = (struct npusim_task_record) {
		.device = arg.device,
		.stream = s->id,
		.task_id = task_id,
		.flip = flip,
		.kind = t->kernel->kind,
	};
	*sub = (struct npusim_submitted) {
		.device = arg.device, .stream = s->id, .task_id = task_id,
		.flip = flip, .wrapped = t->wrapped,
	};
	s->tasks++;
	s->last_task = t->seq;
	npusim_drv_ioctl(NPUSIM_IOC_SUBMIT, &arg);
	t->next = NULL;
	*dev->tail = t;
	dev->tail = &t->next;
	pthread_cond_signal(&dev->work);
}

/* Copies kernel->args_size bytes of args; the caller checked them. */
aclError npusim_stream_submit(struct npusim_device *dev, aclrtStream h,
			      const struct npusim_kernel *kernel,
			      const void *args, struct npusim_submitted *sub)
{
	struct npusim_stream **link;
	struct npusim_task *t;
	aclError ret;

	t = malloc(sizeof(*t) + kernel->args_size);
	if (!t)
		return ACL_ERROR_BAD_ALLOC;
	t->kernel = kernel;
	memcpy(t->args, args, kernel->args_size);
	pthread_mutex_lock(&dev->lock);
	link = stream_link(dev, h);
	ret = stream_check(dev, link);
	if (!ret)
		stream_enqueue(dev, *link, t, sub);
	pthread_mutex_unlock(&dev->lock);
	if (ret)
		free(t);
	return ret;
}
