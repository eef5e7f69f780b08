/* SPDX-License-Identifier: MIT */
/*
 * npusim: a simulated accelerator runtime with the documented ACL API names,
 * so that the probes written for a real Ascend host run unchanged here.
 */
#ifndef NPUSIM_ACL_H
#define NPUSIM_ACL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int aclError;
typedef void *aclrtStream;

#define ACL_SUCCESS			0
#define ACL_ERROR_INVALID_PARAM		100000
#define ACL_ERROR_UNINITIALIZE		100001
#define ACL_ERROR_REPEAT_INITIALIZE	100002
#define ACL_ERROR_INVALID_DEVICE	107001
#define ACL_ERROR_CONTEXT_NULL		107002
#define ACL_ERROR_STREAM_NOT_SUBSCRIBE	107004
#define ACL_ERROR_KERNEL_NOT_FOUND	107005
#define ACL_ERROR_BAD_ALLOC		200000
#define ACL_ERROR_RT_DRV_INTERNAL_ERROR	507899

typedef enum {
	ACL_MEM_MALLOC_HUGE_FIRST,
	ACL_MEM_MALLOC_HUGE_ONLY,
	ACL_MEM_MALLOC_NORMAL_ONLY,
} aclrtMemMallocPolicy;

typedef enum {
	ACL_MEMCPY_HOST_TO_HOST,
	ACL_MEMCPY_HOST_TO_DEVICE,
	ACL_MEMCPY_DEVICE_TO_HOST,
	ACL_MEMCPY_DEVICE_TO_DEVICE,
} aclrtMemcpyKind;

aclError aclInit(const char *configPath);
aclError aclFinalize(void);
aclError aclrtSetDevice(int32_t deviceId);
aclError aclrtResetDevice(int32_t deviceId);
aclError aclrtGetDeviceCount(uint32_t *count);
aclError aclrtCreateStream(aclrtStream *stream);
aclError aclrtDestroyStream(aclrtStream stream);
aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtFree(void *devPtr);
aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
		     aclrtMemcpyKind kind);
aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src,
			  size_t count, aclrtMemcpyKind kind,
			  aclrtStream stream);
aclError aclrtSynchronizeStream(aclrtStream stream);
aclError aclrtSynchronizeDevice(void);

/*
 * Enqueues the named built-in kernel on stream; it runs asynchronously on
 * the device's worker thread.  args points to argsSize bytes that are copied
 * at launch; their layout is the kernel's (see npusim_kernels.h).
 */
aclError aclrtLaunchKernel(const char *kernelName, uint32_t blockDim,
			   const void *args, size_t argsSize,
			   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
