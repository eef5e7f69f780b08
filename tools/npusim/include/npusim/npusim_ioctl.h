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
 *   npusimLaunchHostTask     NPUSIM_IOC_SUBMIT
 *   aclrtSynchronizeStream   NPUSIM_IOC_SYNC
 *   aclrtSynchronizeDevice   NPUSIM_IOC_SYNC
 *
 * The node is opened once per process, by the first aclInit, and stays open.
 */
#ifndef NPUSIM_IOCTL_H
#define NPUSIM_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * Fields a command does not use are 0; stream ids start at 1
 * so 0 means none.
 */
struct npusim_ioctl_arg {
	__u32 device;
	__u32 stream;	/* SUBMIT, SYNC of one stream */
	__u64 addr;	/* MALLOC, FREE: the block; MEMCPY: destination */
	__u64 size;	/* MALLOC: bytes asked; MEMCPY: bytes copied */
	__u32 task_id;	/* SUBMIT: the stream's flips << 16 | its 16-bit id */
	__u32 flags;	/* MALLOC: policy; MEMCPY: aclrtMemcpyKind */
};

/* Not 'N': strace would print these numbers as NVDIMM commands. */
#define NPUSIM_IOC_MAGIC	'Y'

#define NPUSIM_IOC(nr) \
	_IOWR(NPUSIM_IOC_MAGIC, nr, struct npusim_ioctl_arg)

#define NPUSIM_IOC_SET_DEVICE	NPUSIM_IOC(1)
#define NPUSIM_IOC_RESET_DEVICE	NPUSIM_IOC(2)
#define NPUSIM_IOC_MALLOC	NPUSIM_IOC(3)
#define NPUSIM_IOC_FREE		NPUSIM_IOC(4)
#define NPUSIM_IOC_MEMCPY	NPUSIM_IOC(5)
#define NPUSIM_IOC_SUBMIT	NPUSIM_IOC(6)
#define NPUSIM_IOC_SYNC		NPUSIM_IOC(7)

#endif
