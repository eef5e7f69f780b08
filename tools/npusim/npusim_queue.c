// SPDX-License-Identifier: MIT
/*
 * The task queue (npusim/npusim_queue.h): a ring of ops under one mutex,
 * filled by any thread, emptied in order by the queue's worker.  It sits
 * above the ACL API and calls it as an application would, so the worker's
 * calls are probed, counted and reported like any other thread's.
 */
#include <stdlib.h>
#include <string.h>

#include <npusim/npusim_queue.h>

#include "npusim_internal.h"

enum item_kind { ITEM_KERNEL, ITEM_COPY };

struct npusim_queue_item {
	enum item_kind kind;
	aclrtStream stream;
	union {
		struct {
			const char *name;
			uint32_t block_dim;
			size_t size;
			unsigned char args[NPUSIM_QUEUE_ARGS_MAX];
		} kernel;
		struct {
			void *dst;
			size_t dest_max;
			const void *src;
			size_t count;
			aclrtMemcpyKind kind;
		} copy;
	};
};

struct slot {
	uint64_t seq;
	struct npusim_queue_item item;
};

struct npusim_queue {
	pthread_mutex_t lock;	/* everything below */
	pthread_cond_t more;	/* an op queued, or stopping */
	pthread_cond_t room;	/* an op taken */
	pthread_cond_t ran;	/* done advanced, or the worker started */
	struct slot *ring;
	uint32_t cap;
	uint64_t taken, put, done;	/* ops, since the queue began */
	aclError failed;	/* the first failure since the last drain */
	aclError start_ret;	/* the worker's aclrtSetDevice */
	bool started;
	bool stopping;
	bool direct;		/* TASK_QUEUE_ENABLE=0: no worker */
	int32_t device;
	pthread_t worker;
};

/* One numbering for every queue: a sequence number names one op. */
static uint64_t last_seq;

static aclError run_item(const struct npusim_queue_item *item)
{
	if (item->kind == ITEM_KERNEL)
		return aclrtLaunchKernel(item->kernel.name, item->kernel.block_dim,
					 item->kernel.args, item->kernel.size,
					 item->stream);
	return aclrtMemcpyAsync(item->copy.dst, item->copy.dest_max,
				item->copy.src, item->copy.count,
				item->copy.kind, item->stream);
}

/* noinline: a probe on it must see every op, not a copy inlined. */
__attribute__((noinline)) aclError
npusimQueueRun(npusimQueue *q, uint64_t seq, const struct npusim_queue_item *item)
{
	(void)seq;	/* read by a probe, at entry */
	if (!q || !item)
		return ACL_ERROR_INVALID_PARAM;
	return run_item(item);
}

__attribute__((noinline)) aclError
npusimQueueEnqueue(npusimQueue *q, uint64_t seq, const struct npusim_queue_item *item)
{
	struct slot *s;

	if (!q || !item || q->direct)
		return ACL_ERROR_INVALID_PARAM;
	pthread_mutex_lock(&q->lock);
	while (q->put - q->taken == q->cap)
		pthread_cond_wait(&q->room, &q->lock);
	s = &q->ring[q->put++ % q->cap];
	s->seq = seq;
	s->item = *item;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
	return ACL_SUCCESS;
}

/* Takes the next op, waiting for one; false once stopping and empty. */
static bool take(struct npusim_queue *q, struct slot *out)
{
	while (q->taken == q->put && !q->stopping)
		pthread_cond_wait(&q->more, &q->lock);
	if (q->taken == q->put)
		return false;
	*out = q->ring[q->taken++ % q->cap];
	pthread_cond_signal(&q->room);
	return true;
}

static void *worker_main(void *arg)
{
	struct npusim_queue *q = arg;
	aclError ret = aclrtSetDevice(q->device);
	struct slot s;

	pthread_mutex_lock(&q->lock);
	q->start_ret = ret;
	q->started = true;
	pthread_cond_broadcast(&q->ran);
	while (!q->start_ret && take(q, &s)) {
		pthread_mutex_unlock(&q->lock);
		ret = npusimQueueRun(q, s.seq, &s.item);
		pthread_mutex_lock(&q->lock);
		if (ret && !q->failed)
			q->failed = ret;
		q->done++;
		pthread_cond_broadcast(&q->ran);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

/* Runs item at once (direct) or queues it under the next number. */
static aclError submit(struct npusim_queue *q, const struct npusim_queue_item *item)
{
	if (q->direct)
		return run_item(item);
	return npusimQueueEnqueue(q, __atomic_add_fetch(&last_seq, 1, __ATOMIC_RELAXED),
				  item);
}

aclError npusimQueueLaunchKernel(npusimQueue *q, const char *kernelName,
				 uint32_t blockDim, const void *args,
				 size_t argsSize, aclrtStream stream)
{
	struct npusim_queue_item item = {
		.kind = ITEM_KERNEL, .stream = stream,
		.kernel = { .name = kernelName, .block_dim = blockDim, .size = argsSize },
	};

	if (!q || !kernelName || argsSize > sizeof(item.kernel.args) ||
	    (argsSize && !args))
		return ACL_ERROR_INVALID_PARAM;
	if (argsSize)
		memcpy(item.kernel.args, args, argsSize);
	return submit(q, &item);
}

aclError npusimQueueMemcpyAsync(npusimQueue *q, void *dst, size_t destMax,
				const void *src, size_t count,
				aclrtMemcpyKind kind, aclrtStream stream)
{
	struct npusim_queue_item item = {
		.kind = ITEM_COPY, .stream = stream,
		.copy = { .dst = dst, .dest_max = destMax, .src = src,
			  .count = count, .kind = kind },
	};

	if (!q)
		return ACL_ERROR_INVALID_PARAM;
	return submit(q, &item);
}

aclError npusimQueueDrain(npusimQueue *q)
{
	aclError ret;
	uint64_t until;

	if (!q)
		return ACL_ERROR_INVALID_PARAM;
	pthread_mutex_lock(&q->lock);
	until = q->put;
	while (!q->direct && q->done < until)
		pthread_cond_wait(&q->ran, &q->lock);
	ret = q->failed;
	q->failed = ACL_SUCCESS;
	pthread_mutex_unlock(&q->lock);
	return ret;
}

static void queue_free(struct npusim_queue *q)
{
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->more);
	pthread_cond_destroy(&q->room);
	pthread_cond_destroy(&q->ran);
	free(q->ring);
	free(q);
}

/* Stops the worker once it has run everything queued, and joins it. */
static void stop_worker(struct npusim_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->stopping = true;
	pthread_cond_broadcast(&q->more);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->worker, NULL);
}

/* Starts the worker and waits for its aclrtSetDevice, whose result it is. */
static aclError start_worker(struct npusim_queue *q)
{
	aclError ret;

	if (pthread_create(&q->worker, NULL, worker_main, q))
		return ACL_ERROR_BAD_ALLOC;
	pthread_mutex_lock(&q->lock);
	while (!q->started)
		pthread_cond_wait(&q->ran, &q->lock);
	ret = q->start_ret;
	pthread_mutex_unlock(&q->lock);
	if (ret)
		stop_worker(q);
	return ret;
}

static bool queue_enabled(void)
{
	const char *s = getenv("TASK_QUEUE_ENABLE");

	return !s || strcmp(s, "0");
}

aclError npusimQueueCreate(int32_t device, uint32_t capacity,
			   npusimQueue **out)
{
	struct npusim_queue *q;
	aclError ret;

	if (!out)
		return ACL_ERROR_INVALID_PARAM;
	q = calloc(1, sizeof(*q));
	if (!q)
		return ACL_ERROR_BAD_ALLOC;
	q->device = device;
	q->cap = capacity ? capacity : NPUSIM_QUEUE_DEFAULT_CAPACITY;
	q->direct = !queue_enabled();
	q->ring = q->direct ? NULL : calloc(q->cap, sizeof(*q->ring));
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->more, NULL);
	pthread_cond_init(&q->room, NULL);
	pthread_cond_init(&q->ran, NULL);
	ret = q->direct ? ACL_SUCCESS : q->ring ? start_worker(q) : ACL_ERROR_BAD_ALLOC;
	if (ret) {
		queue_free(q);
		return ret;
	}
	*out = q;
	return ACL_SUCCESS;
}

aclError npusimQueueDestroy(npusimQueue *q)
{
	aclError ret;

	if (!q)
		return ACL_SUCCESS;
	ret = npusimQueueDrain(q);
	if (!q->direct)
		stop_worker(q);
	queue_free(q);
	return ret;
}
