// SPDX-License-Identifier: MIT
/*
 * The ACL memory calls, on the simulated device memory of npusim_blocks.c;
 * apart from it, so that a device reset in npusim_runtime.c can take back
 * the blocks without a circle between the two files.
 */
#include <string.h>

#include "npusim_internal.h"

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
	struct npusim_device *dev;
	aclError ret;

	ret = npusim_rt_enter(NPUSIM_ACL_aclrtMalloc);
	if (ret)
		return ret;
	if (!devPtr || !size ||
	    (unsigned int)policy > ACL_MEM_MALLOC_NORMAL_ONLY)
		ret = ACL_ERROR_INVALID_PARAM;
	else
		ret = npusim_rt_current(&dev);
	if (!ret)
		ret = npusim_mem_alloc(dev, devPtr, size, policy);
	npusim_rt_leave();
	return ret;
}

aclError aclrtFree(void *devPtr)
{
	struct npusim_device *dev;
	aclError ret;

	ret = npusim_rt_enter(NPUSIM_ACL_aclrtFree);
	if (ret)
		return ret;
	if (!devPtr)
		ret = ACL_ERROR_INVALID_PARAM;
	else
		ret = npusim_rt_current(&dev);
	if (!ret)
		ret = npusim_mem_free(devPtr);
	npusim_rt_leave();
	return ret;
}

bool npusim_copy_valid(const void *dst, size_t dest_max, const void *src,
		       size_t count, aclrtMemcpyKind kind)
{
	return dst && src && dest_max >= count &&
	       (unsigned int)kind <= ACL_MEMCPY_DEVICE_TO_DEVICE;
}

/* The driver does a synchronous copy itself; there is no device task. */
static aclError copy_sync(void *dst, size_t dest_max, const void *src,
			  size_t count, aclrtMemcpyKind kind)
{
	struct npusim_ioctl_arg arg = {
		.addr = (uintptr_t)dst,
		.size = count,
		.flags = kind,
	};
	struct npusim_device *dev;
	aclError ret;

	if (!npusim_copy_valid(dst, dest_max, src, count, kind))
		return ACL_ERROR_INVALID_PARAM;
	ret = npusim_rt_current(&dev);
	if (ret)
		return ret;
	arg.device = npusim_dev_id(dev);
	npusim_drv_ioctl(NPUSIM_IOC_MEMCPY, &arg);
	memmove(dst, src, count);
	return ACL_SUCCESS;
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
		     aclrtMemcpyKind kind)
{
	aclError ret;

	ret = npusim_rt_enter(NPUSIM_ACL_aclrtMemcpy);
	if (ret)
		return ret;
	ret = copy_sync(dst, destMax, src, count, kind);
	npusim_rt_leave();
	return ret;
}
