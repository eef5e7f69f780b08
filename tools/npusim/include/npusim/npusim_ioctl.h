/* SPDX-License-Identifier: MIT */
/*
 * The commands npusim sends to its simulated device node (env NPUSIM_DEVICE,
 * default /dev/null).  The node does not understand them; the syscalls exist
 * so that a tracer sees driver traffic shaped like a real runtime's.
 *
 * Each API call below that returns ACL_SUCCESS issues exactly one ioctl;
 * a call that fails issues none.  No other API issues any.
 *
 *   aclrtSetDevice           NPUSIM_IOC_SET_DEVICE
 *   aclrtResetDevice         NPUSIM_IOC_RESET_DEVICE
 *   aclrtMalloc              NPUSIM_IOC_MALLOC
 *   aclrtFree                NPUSIM_IOC_FREE
 *   aclrtMemcpy              NPUSIM_IOC_MEMCPY
 *   aclrtLaunchKernel        NPUSIM_IOC_SUBMIT
 *   aclrtMemcpyAsync         NPUSIM_IOC_SUBMIT
 *   aclrtSynchronizeStream   NPUSIM_IOC_SYNC
 *   aclrtSynchronizeDevice   NPUSIM_IOC_SYNC
 *
 * The node is opened once per process, by the first aclInit, and stays open.
 */
#ifndef NPUSIM_IOCTL_H
#define NPUSIM_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Fields a command does not use are 0; ids start at 1 so 0 means none. */
struct npusim_ioctl_arg {
	__u32 device;
	__u32 stream;	/* SUBMIT, SYNC of one stream */
	__u64 addr;	/* MALLOC, FREE: the block; MEMCPY: destination */
	__u64 size;	/* MALLOC: bytes asked; MEMCPY: bytes copied */
	__u32 task_id;	/* SUBMIT */
	__u32 flags;	/* MALLOC: aclrtMemMallocPolicy; MEMCPY: aclrtMemcpyKind */
};

/*
 * 'N' would read as NVDIMM commands in strace; 'Y' belonged to the cyclades
 * serial driver, gone since Linux 5.13, and nothing decodes these numbers.
 */
#define NPUSIM_IOC_MAGIC	'Y'

#define NPUSIM_IOC_SET_DEVICE	_IOWR(NPUSIM_IOC_MAGIC, 1, struct npusim_ioctl_arg)
#define NPUSIM_IOC_RESET_DEVICE	_IOWR(NPUSIM_IOC_MAGIC, 2, struct npusim_ioctl_arg)
#define NPUSIM_IOC_MALLOC	_IOWR(NPUSIM_IOC_MAGIC, 3, struct npusim_ioctl_arg)
#define NPUSIM_IOC_FREE		_IOWR(NPUSIM_IOC_MAGIC, 4, struct npusim_ioctl_arg)
#define NPUSIM_IOC_MEMCPY	_IOWR(NPUSIM_IOC_MAGIC, 5, struct npusim_ioctl_arg)
#define NPUSIM_IOC_SUBMIT	_IOWR(NPUSIM_IOC_MAGIC, 6, struct npusim_ioctl_arg)
#define NPUSIM_IOC_SYNC		_IOWR(NPUSIM_IOC_MAGIC, 7, struct npusim_ioctl_arg)

#endif
