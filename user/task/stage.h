/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_STAGE_H
#define MSPROF_STAGE_H

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

/* The task's user owns the staging directory: never follow its links. */
#define STAGE_DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/*
 * The staging directory for a task's device data, owned by the task's
 * user: msprof holds it open, the agent writes to it by path.
 */
struct stage {
	char name[64];
	char task_path[PATH_MAX];	/* as the task's agent writes to it */
	int parent_fd;		/* the directory holding it, -1 if none */
	int fd;			/* the staging directory, -1 if none */
	uid_t uid;		/* the task's user, who owns what it stages */
	gid_t gid;
	/* Its /tmp may not hold a directory of root's making. */
	bool parent_refused;
};

/* None yet. */
void stage_init(struct stage *s);
/*
 * A new staging directory for every session of the task pid, named so that
 * no one can make it beforehand (one found there is an error, never
 * reused), and so that one a killed controller left is never taken for
 * ours.  It goes under output (open as out) when the task sees output as
 * msprof does; a task with a mount namespace of its own cannot: then into
 * its own /tmp, through its root (parent_refused if that /tmp may not take
 * it).  Handed to the task's user.
 */
int stage_create(struct stage *s, int pid, bool own_mnt_ns, const char *output,
		 int out);
/*
 * Removes the staging directory with its files; what could not be removed
 * (someone else's entry there) is left, and the first failure returned.
 */
int stage_remove(struct stage *s);

#endif
