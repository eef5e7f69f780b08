/* SPDX-License-Identifier: MIT */
/*
 * A task queue the way torch_npu has one (TASK_QUEUE_ENABLE): the calling
 * thread enqueues an op and goes on, and a worker thread of the queue's
 * own, which never runs Python, makes the ACL call.  A profiler that sees
 * the launch on the worker finds the line that asked for it through the
 * op's enqueue: npusimQueueEnqueue() and npusimQueueRun() both carry the
 * op's sequence number, unique in the process (docs/probes.md).
 *
 * Plain C types only, so ctypes can drive it.  Any thread may call any of
 * these on any queue, but npusimQueueDestroy() must be a queue's last.
 */
#ifndef NPUSIM_QUEUE_H
#define NPUSIM_QUEUE_H

#include <acl/acl.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct npusim_queue npusimQueue;

/* What an op holds; the queue's own, opaque to callers. */
struct npusim_queue_item;

/* The most bytes of kernel arguments an op carries (npusim's kernels'). */
#define NPUSIM_QUEUE_ARGS_MAX	64
/* The ops a queue holds when capacity is 0, as many as torch_npu's. */
#define NPUSIM_QUEUE_DEFAULT_CAPACITY	4096

/*
 * A queue for device (0 .. the device count - 1) holding at most capacity
 * ops (0: the default); an enqueue into a full queue waits for room.  Its
 * worker calls aclrtSetDevice(device) once as it starts, as torch_npu's
 * consumer thread does, then one ACL call per op, in order.  With
 * TASK_QUEUE_ENABLE=0 in the environment there is no worker: each op is
 * the caller's ACL call at once, with no enqueue or run (torch_npu's
 * shape then); anything else, or nothing, means the worker.
 */
aclError npusimQueueCreate(int32_t device, uint32_t capacity,
			   npusimQueue **out);

/*
 * Queue aclrtLaunchKernel(kernelName, blockDim, args, argsSize, stream),
 * or aclrtMemcpyAsync(dst, destMax, src, count, kind, stream); the
 * arguments are copied (argsSize at most NPUSIM_QUEUE_ARGS_MAX) and
 * kernelName must stay valid until the op has run.  An ACL call's failure
 * is the next npusimQueueDrain()'s return.
 */
aclError npusimQueueLaunchKernel(npusimQueue *q, const char *kernelName,
				 uint32_t blockDim, const void *args,
				 size_t argsSize, aclrtStream stream);
aclError npusimQueueMemcpyAsync(npusimQueue *q, void *dst, size_t destMax,
				const void *src, size_t count,
				aclrtMemcpyKind kind, aclrtStream stream);

/*
 * Waits until every op queued before it has run (torch_npu's
 * MakeSureQueueEmpty, before a stream is synchronized); the first ACL
 * failure among them, else ACL_SUCCESS.
 */
aclError npusimQueueDrain(npusimQueue *q);

/* Drains q, stops its worker and frees it; NULL is fine. */
aclError npusimQueueDestroy(npusimQueue *q);

/*
 * The pair a profiler probes; the functions above call them, applications
 * do not.  Enqueue runs on the caller's thread and puts item (numbered
 * seq) in q; Run runs on the worker and makes the item's ACL call.
 */
aclError npusimQueueEnqueue(npusimQueue *q, uint64_t seq,
			    const struct npusim_queue_item *item);
aclError npusimQueueRun(npusimQueue *q, uint64_t seq,
			const struct npusim_queue_item *item);

#ifdef __cplusplus
}
#endif

#endif
