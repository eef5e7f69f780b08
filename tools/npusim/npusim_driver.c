// SPDX-License-Identifier: MIT
/*
 * The driver layer: the calls a real runtime makes into its kernel driver
 * become real ioctl() syscalls on the simulated device node, so that a
 * tracer watching the syscall sees them where it would on real hardware.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "npusim_internal.h"

/* Written once, by the first aclInit under the runtime's write lock. */
static int drv_fd = -1;

/* Kept open for the life of the process, as a driver handle is. */
int npusim_drv_open(void)
{
	const char *path = getenv("NPUSIM_DEVICE");

	if (drv_fd >= 0)
		return 0;
	if (!path || !*path)
		path = "/dev/null";
	drv_fd = open(path, O_RDWR | O_CLOEXEC);
	return drv_fd < 0 ? -errno : 0;
}

/* The node knows none of our commands: the syscall itself is the point. */
void npusim_drv_ioctl(unsigned long cmd, struct npusim_ioctl_arg *arg)
{
	(void)ioctl(drv_fd, cmd, arg);
}
