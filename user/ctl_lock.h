/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_CTL_LOCK_H
#define MSPROF_CTL_LOCK_H

/*
 * Only one msprof may control a task.  The lock is a flock() on a file in
 * the task's own /tmp, named by the pid the task sees, so a controller on
 * the host and one inside the task's container meet at the same file, and
 * the kernel frees it the instant the holder dies.
 *
 * Fills l and returns 0, or -EBUSY with the holder's pid in *holder (0 if
 * unknown), or another -errno.
 */
struct ctl_lock {
	int fd;		/* the locked file, -1 if not held */
	int dir_fd;	/* the task's /tmp: the file goes even after the task */
	int ns_pid;
};

int ctl_lock(struct ctl_lock *l, int host_pid, int ns_pid, int *holder);
void ctl_unlock(struct ctl_lock *l);

#endif
