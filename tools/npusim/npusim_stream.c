// SPDX-License-Identifier: MIT
/* The stream API: streams, kernel launches and asynchronous copies. */
#include "npusim_internal.h"

static aclError create_stream(aclrtStream *stream)
{
	struct npusim_device *dev;
	aclError ret;

	if (!stream)
		return ACL_ERROR_INVALID_PARAM;
	ret = npusim_rt_current(&dev);
	if (ret)
		return ret;
	return npusim_stream_create(dev, stream);
}

aclError aclrtCreateStream(aclrtStream *stream)
{
	aclError ret;

	ret = npusim_rt_enter(NPUSIM_ACL_aclrtCreateStream);
	if (ret)
		return ret;
	ret = create_stream(stream);
	npusim_rt_leave();
	return ret;
}

/*
 * A stream belongs to the device current when it was created; naming it
 * while another device is current is an invalid handle, as in ACL.
 */
static aclError stream_op(aclrtStream stream, enum npusim_acl api,
			  aclError (*op)(struct npusim_device *, aclrtStream))
{
	struct npusim_device *dev;
	aclError ret;

	ret = npusim_rt_enter(api);
	if (ret)
		return ret;
	if (!stream)
		ret = ACL_ERROR_INVALID_PARAM;
	else
		ret = npusim_rt_current(&dev);
	if (!ret)
		ret = op(dev, stream);
	npusim_rt_leave();
	return ret;
}

aclError aclrtDestroyStream(aclrtStream stream)
{
	return stream_op(stream, NPUSIM_ACL_aclrtDestroyStream,
			 npusim_stream_destroy);
}

aclError aclrtSynchronizeStream(aclrtStream stream)
{
	return stream_op(stream, NPUSIM_ACL_aclrtSynchronizeStream,
			 npusim_stream_sync);
}

/* A submit as the runtime reports it: its API around it, the task_track inside. */
static aclError submit(struct npusim_device *dev, aclrtStream stream,
		       const struct npusim_kernel *kernel, const char *name,
		       const void *args)
{
	const struct npusim_copy_args *copy = args;
	uint64_t begin = npusim_rep_begin();
	struct npusim_submitted sub;
	aclError ret;

	ret = npusim_stream_submit(dev, stream, kernel, args, &sub);
	if (!ret)
		npusim_rep_submit(begin, kernel, name, &sub,
				  kernel->kind == NPUSIM_TASK_MEMCPY ?
				  copy->count : 0,
				  kernel->kind == NPUSIM_TASK_MEMCPY ?
				  copy->kind : ACL_MEMCPY_HOST_TO_HOST);
	return ret;
}

/* An op launch: node-level, around the runtime's submit. */
static aclError launch(const char *name, uint32_t block_dim, const void *args,
		       size_t size, aclrtStream stream)
{
	const struct npusim_kernel *kernel;
	struct npusim_device *dev;
	uint64_t begin;
	aclError ret;

	if (!name || !args || !stream || !block_dim)
		return ACL_ERROR_INVALID_PARAM;
	ret = npusim_rt_current(&dev);
	if (ret)
		return ret;
	kernel = npusim_kernel_find(name);
	if (!kernel)
		return ACL_ERROR_KERNEL_NOT_FOUND;
	if (size != kernel->args_size || !kernel->valid(args))
		return ACL_ERROR_INVALID_PARAM;
	begin = npusim_rep_begin();
	ret = submit(dev, stream, kernel, kernel->name, args);
	if (!ret)
		npusim_rep_node(begin, kernel, block_dim, args);
	return ret;
}

aclError aclrtLaunchKernel(const char *kernelName, uint32_t blockDim,
			   const void *args, size_t argsSize,
			   aclrtStream stream)
{
	aclError ret;

	ret = npusim_rt_enter(NPUSIM_ACL_aclrtLaunchKernel);
	if (ret)
		return ret;
	ret = launch(kernelName, blockDim, args, argsSize, stream);
	npusim_rt_leave();
	return ret;
}

static aclError copy_async(void *dst, size_t dest_max, const void *src,
			   size_t count, aclrtMemcpyKind kind,
			   aclrtStream stream)
{
	struct npusim_copy_args args = { dst, src, count, kind };
	struct npusim_device *dev;
	aclError ret;

	if (!stream || !npusim_copy_valid(dst, dest_max, src, count, kind))
		return ACL_ERROR_INVALID_PARAM;
	ret = npusim_rt_current(&dev);
	if (ret)
		return ret;
	return submit(dev, stream, &npusim_copy_kernel, npusim_copy_kernel.name,
		      &args);
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src,
			  size_t count, aclrtMemcpyKind kind,
			  aclrtStream stream)
{
	aclError ret;

	ret = npusim_rt_enter(NPUSIM_ACL_aclrtMemcpyAsync);
	if (ret)
		return ret;
	ret = copy_async(dst, destMax, src, count, kind, stream);
	npusim_rt_leave();
	return ret;
}

static aclError host_task(aclrtStream stream, const char *name,
			  npusim_host_task_fn run, void *arg)
{
	struct npusim_host_args args = { run, arg };
	struct npusim_device *dev;
	aclError ret;

	if (!stream || !name || !run)
		return ACL_ERROR_INVALID_PARAM;
	ret = npusim_rt_current(&dev);
	if (ret)
		return ret;
	return submit(dev, stream, &npusim_host_kernel, name, &args);
}

__attribute__((visibility("default")))
aclError npusimLaunchHostTask(aclrtStream stream, const char *name,
			      npusim_host_task_fn run, void *arg)
{
	aclError ret;

	ret = npusim_rt_enter(NPUSIM_ACL_NONE);
	if (ret)
		return ret;
	ret = host_task(stream, name, run, arg);
	npusim_rt_leave();
	return ret;
}
