// SPDX-License-Identifier: MIT
/*
 * Simulated device memory: host memory, but every block is registered so
 * that aclrtFree can refuse pointers it never gave out and a device reset
 * can take back what its application forgot.
 */
#include <stdlib.h>

#include "npusim_internal.h"

/* Cache-line aligned, so kernels never straddle lines at element 0. */
#define MEM_ALIGN	64

struct mem_block {
	struct mem_block *next;
	void *ptr;
	uint32_t device;
};

static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mem_block *blocks;

aclError npusim_mem_alloc(struct npusim_device *dev, void **out, size_t size,
			  aclrtMemMallocPolicy policy)
{
	struct npusim_ioctl_arg arg = {
		.device = npusim_dev_id(dev),
		.size = size,
		.flags = policy,
	};
	struct mem_block *b;

	b = malloc(sizeof(*b));
	if (!b)
		return ACL_ERROR_BAD_ALLOC;
	if (posix_memalign(&b->ptr, MEM_ALIGN, size)) {
		free(b);
		return ACL_ERROR_BAD_ALLOC;
	}
	b->device = arg.device;
	pthread_mutex_lock(&mem_lock);
	b->next = blocks;
	blocks = b;
	pthread_mutex_unlock(&mem_lock);
	*out = b->ptr;
	arg.addr = (uintptr_t)b->ptr;
	npusim_drv_ioctl(NPUSIM_IOC_MALLOC, &arg);
	return ACL_SUCCESS;
}

/* The block ptr starts, taken off the list; NULL if we never gave it out. */
static struct mem_block *mem_unlink(void *ptr)
{
	struct mem_block **link, *b = NULL;

	pthread_mutex_lock(&mem_lock);
	for (link = &blocks; *link; link = &(*link)->next) {
		if ((*link)->ptr == ptr) {
			b = *link;
			*link = b->next;
			break;
		}
	}
	pthread_mutex_unlock(&mem_lock);
	return b;
}

aclError npusim_mem_free(void *ptr)
{
	struct npusim_ioctl_arg arg = { .addr = (uintptr_t)ptr };
	struct mem_block *b;

	b = mem_unlink(ptr);
	if (!b)
		return ACL_ERROR_INVALID_PARAM;
	arg.device = b->device;
	free(b->ptr);
	free(b);
	npusim_drv_ioctl(NPUSIM_IOC_FREE, &arg);
	return ACL_SUCCESS;
}

/* Called once the device's worker is gone, so nothing still uses these. */
void npusim_mem_release(uint32_t device)
{
	struct mem_block **link = &blocks, *b;

	pthread_mutex_lock(&mem_lock);
	while ((b = *link)) {
		if (b->device == device) {
			*link = b->next;
			free(b->ptr);
			free(b);
		} else {
			link = &b->next;
		}
	}
	pthread_mutex_unlock(&mem_lock);
}
