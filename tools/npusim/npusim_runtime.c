// SPDX-License-Identifier: MIT
/*
 * Process-wide runtime state and the device API.  The current device is
 * per thread, as ACL's current context is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msprof/agent.h>

#include "npusim_internal.h"

/*
 * Readers: every API call.  Writer: aclInit and aclFinalize, which go
 * first so that busy threads cannot starve them.  No call re-enters.
 */
static pthread_rwlock_t rt_lock =
	PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static bool rt_ready;
static uint32_t rt_ndev;

/* Which bring-up of the device this thread set, so a reset unsets it. */
static __thread int32_t cur_dev = -1;
static __thread uint64_t cur_gen;
/* The ACL call this thread is in, reported at its leave. */
static __thread enum npusim_acl cur_api = NPUSIM_ACL_NONE;
static __thread uint64_t cur_begin;

aclError npusim_rt_enter(enum npusim_acl api)
{
	uint64_t begin = api < NPUSIM_ACL_NONE ? npusim_rep_begin() : 0;

	pthread_rwlock_rdlock(&rt_lock);
	if (rt_ready) {
		cur_api = api;
		cur_begin = begin;
		return ACL_SUCCESS;
	}
	pthread_rwlock_unlock(&rt_lock);
	return ACL_ERROR_UNINITIALIZE;
}

void npusim_rt_leave(void)
{
	enum npusim_acl api = cur_api;

	cur_api = NPUSIM_ACL_NONE;
	pthread_rwlock_unlock(&rt_lock);
	npusim_rep_acl(api, cur_begin);
}

aclError npusim_rt_current(struct npusim_device **dev)
{
	struct npusim_device *d;

	if (cur_dev < 0 || (uint32_t)cur_dev >= rt_ndev)
		return ACL_ERROR_CONTEXT_NULL;
	d = npusim_dev_get(cur_dev);
	if (!npusim_dev_is_current(d, cur_gen))
		return ACL_ERROR_CONTEXT_NULL;
	*dev = d;
	return ACL_SUCCESS;
}

/* NPUSIM_DEVICES: 0 to 8; larger is clamped, anything else means 2. */
static uint32_t env_devices(void)
{
	const char *s = getenv("NPUSIM_DEVICES");
	char *end;
	long n;

	if (!s || !*s)
		return NPUSIM_DEFAULT_DEVICES;
	n = strtol(s, &end, 10);
	if (*end || n < 0)
		return NPUSIM_DEFAULT_DEVICES;
	return n > NPUSIM_MAX_DEVICES ? NPUSIM_MAX_DEVICES : n;
}

/* configPath is accepted for compatibility; npusim has nothing to tune. */
aclError aclInit(const char *configPath)
{
	uint64_t begin = npusim_rep_begin();
	aclError ret = ACL_SUCCESS;
	int err;

	(void)configPath;
	pthread_rwlock_wrlock(&rt_lock);
	if (rt_ready) {
		ret = ACL_ERROR_REPEAT_INITIALIZE;
	} else if (npusim_drv_open()) {
		ret = ACL_ERROR_RT_DRV_INTERNAL_ERROR;
	} else {
		rt_ndev = env_devices();
		rt_ready = true;
	}
	pthread_rwlock_unlock(&rt_lock);
	if (ret)
		return ret;

	/* Outside the lock: the agent may well call into us. */
	err = msprof_agent_start();
	if (err < 0)
		fprintf(stderr, "npusim: profiling agent: %s\n", strerror(-err));
	npusim_rep_acl(NPUSIM_ACL_aclInit, begin);
	return ACL_SUCCESS;
}

static void reset_device(uint32_t id)
{
	npusim_dev_down(npusim_dev_get(id));
	npusim_mem_release(id);
}

/* Issues no ioctl: it tears down only what the application left behind. */
aclError aclFinalize(void)
{
	uint64_t begin = npusim_rep_begin();
	uint32_t id;

	pthread_rwlock_wrlock(&rt_lock);
	if (!rt_ready) {
		pthread_rwlock_unlock(&rt_lock);
		return ACL_ERROR_UNINITIALIZE;
	}
	for (id = 0; id < rt_ndev; id++)
		reset_device(id);
	rt_ready = false;
	pthread_rwlock_unlock(&rt_lock);
	npusim_rep_acl(NPUSIM_ACL_aclFinalize, begin);
	return ACL_SUCCESS;
}

static bool device_valid(int32_t id)
{
	return id >= 0 && (uint32_t)id < rt_ndev;
}

static aclError set_device(int32_t id)
{
	struct npusim_ioctl_arg arg = { .device = id };
	uint64_t gen;
	aclError ret;

	ret = npusim_dev_up(npusim_dev_get(id), &gen);
	if (ret)
		return ret;
	cur_dev = id;
	cur_gen = gen;
	npusim_drv_ioctl(NPUSIM_IOC_SET_DEVICE, &arg);
	return ACL_SUCCESS;
}

/* No reference count: one aclrtResetDevice undoes any number of these. */
aclError aclrtSetDevice(int32_t deviceId)
{
	aclError ret;

	ret = npusim_rt_enter(NPUSIM_ACL_aclrtSetDevice);
	if (ret)
		return ret;
	if (device_valid(deviceId))
		ret = set_device(deviceId);
	else
		ret = ACL_ERROR_INVALID_DEVICE;
	npusim_rt_leave();
	return ret;
}

/* Frees the device's streams and memory; a device that is down is fine. */
aclError aclrtResetDevice(int32_t deviceId)
{
	struct npusim_ioctl_arg arg = { .device = deviceId };
	aclError ret;

	ret = npusim_rt_enter(NPUSIM_ACL_aclrtResetDevice);
	if (ret)
		return ret;
	if (device_valid(deviceId)) {
		reset_device(deviceId);
		npusim_drv_ioctl(NPUSIM_IOC_RESET_DEVICE, &arg);
	} else {
		ret = ACL_ERROR_INVALID_DEVICE;
	}
	npusim_rt_leave();
	return ret;
}

aclError aclrtGetDeviceCount(uint32_t *count)
{
	aclError ret;

	ret = npusim_rt_enter(NPUSIM_ACL_aclrtGetDeviceCount);
	if (ret)
		return ret;
	if (count)
		*count = rt_ndev;
	else
		ret = ACL_ERROR_INVALID_PARAM;
	npusim_rt_leave();
	return ret;
}

aclError aclrtSynchronizeDevice(void)
{
	struct npusim_device *dev;
	aclError ret;

	ret = npusim_rt_enter(NPUSIM_ACL_aclrtSynchronizeDevice);
	if (ret)
		return ret;
	ret = npusim_rt_current(&dev);
	if (!ret)
		ret = npusim_dev_sync(dev);
	npusim_rt_leave();
	return ret;
}
