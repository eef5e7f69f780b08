/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_CTL_LOCK_H
#define MSPROF_CTL_LOCK_H

#include <sys/types.h>

/* Where the locks live: only root may create or replace anything there. */
#define CTL_LOCK_DIR "/run/msprof"

/*
 * Only one msprof may control a task.  The lock is a flock() on a file in
 * CTL_LOCK_DIR named by the task's pid namespace and the pid it sees
 * itself as: the same name whether msprof runs on the host or in the
 * task's container (when both see the host's /run), and the kernel frees
 * it the instant the holder dies.
 *
 * Fills l and returns 0, or -EBUSY with the holder's pid in *holder (0 if
 * unknown), -EPERM if CTL_LOCK_DIR or the file in it is not root's alone,
 * or another -errno.
 */
struct ctl_lock {
	int fd;		/* the locked file, -1 if not held */
	int dir_fd;	/* CTL_LOCK_DIR */
	char name[64];
};

int ctl_lock(struct ctl_lock *l, int host_pid, int ns_pid, int *holder);
void ctl_unlock(struct ctl_lock *l);
/*
 * Whether a controller holds the task, without creating or locking
 * anything: 1 when one does, with its pid as msprof sees it in *holder
 * (0 if that pid is not visible here), 0 when none does, or -EPERM as
 * ctl_lock(), or another -errno.
 */
int ctl_lock_holder(int host_pid, int ns_pid, int *holder);
/*
 * One line of /proc/locks: 0 and the holder's pid if it is a held flock
 * on the file dev and ino name, else -ENOENT.
 */
int ctl_lock_parse_flock(const char *line, dev_t dev, ino_t ino, int *pid);

#endif
