// SPDX-License-Identifier: MIT
/* The staging directory a task's agent writes its device data to. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/safe_open.h"
#include "common/testpoint.h"
#include "proc/procfs.h"
#include "stage.h"

#define STAGE_PREFIX ".msprof_stage_"

void stage_init(struct stage *s)
{
	memset(s, 0, sizeof(*s));
	s->parent_fd = -1;
	s->fd = -1;
}

int stage_remove(struct stage *s)
{
	int err = 0;

	/*
	 * What the agent flushed after the last collect (a connection that
	 * ended inside a window) is ours to remove too.
	 */
	if (s->fd >= 0) {
		err = fsutil_dir_remove_all(s->fd, s->uid);
		close(s->fd);
		if (unlinkat(s->parent_fd, s->name, AT_REMOVEDIR) && !err)
			err = -errno;
	}
	s->fd = -1;
	if (s->parent_fd >= 0)
		close(s->parent_fd);
	s->parent_fd = -1;
	return err;
}

/* Any entry at all: the directory is not the one just made. */
static int refuse_entry(int dir, const char *name, void *ctx)
{
	(void)dir;
	(void)name;
	(void)ctx;
	return -EEXIST;
}

/*
 * The task's /tmp is whatever its namespace mounts there, a root-only
 * directory of the host's bind-mounted by a user namespace included: only
 * a sticky world-writable one or one of the task's user's own may take a
 * directory of root's making (a checked --output is root's already).
 */
static int parent_ok(const struct stage *s, bool own_mnt_ns,
		     const struct stat *st)
{
	if (!own_mnt_ns)
		return 0;
	if (!S_ISDIR(st->st_mode))
		return -ENOTDIR;
	if (st->st_uid == s->uid ||
	    (st->st_mode & (S_ISVTX | S_IWOTH)) == (S_ISVTX | S_IWOTH))
		return 0;
	return -EPERM;
}

int stage_create(struct stage *s, int pid, bool own_mnt_ns, const char *output,
		 int out)
{
	const char *parent = own_mnt_ns ? "/tmp" : output;
	unsigned long long rnd;
	struct stat st;
	int err;

	/* Said of this connection only: a refusal before must not linger. */
	s->parent_refused = false;
	err = procfs_owner(pid, &s->uid, &s->gid);
	if (err)
		return err;
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -errno;
	snprintf(s->name, sizeof(s->name), STAGE_PREFIX "%d_%d_%016llx", pid,
		 (int)getpid(), rnd);
	if (snprintf(s->task_path, sizeof(s->task_path), "%s/%s", parent,
		     s->name) >= (int)sizeof(s->task_path))
		return -ENAMETOOLONG;
	if (own_mnt_ns) {
		/*
		 * Looked up in the reader, the walk through the task's root
		 * bounded; what is made in it later is not (docs/security.md).
		 */
		err = procfs_stat_in_root(pid, parent, NULL, O_PATH | O_DIRECTORY,
					  &st, &s->parent_fd);
	} else {
		s->parent_fd = fcntl(out, F_DUPFD_CLOEXEC, 0);
		if (s->parent_fd < 0)
			err = -errno;
	}
	if (!err) {
		err = parent_ok(s, own_mnt_ns, &st);
		s->parent_refused = err == -EPERM;
	}
	if (err)
		return err;
	if (mkdirat(s->parent_fd, s->name, 0700))
		return -errno;
	testpoint("stage-made");
	/*
	 * A task with a mount namespace of its own can mount over the name
	 * before we open it: a directory of root's there would be handed to
	 * the task's user by the fchown below.
	 */
	s->fd = safe_openat_beneath(s->parent_fd, s->name, STAGE_DIR_FLAGS, 0);
	if (s->fd < 0) {
		err = s->fd;
		unlinkat(s->parent_fd, s->name, AT_REMOVEDIR);
		return err;
	}
	/*
	 * Ours, just made?  In a sticky /tmp no one else can swap it; in one
	 * the task's user owns, that user can rename a directory of root's
	 * from beside it over ours: fchown would hand it over, and removal
	 * at the end would empty it.  Only an empty one is taken.
	 */
	if (fstat(s->fd, &st))
		err = -errno;
	else if (st.st_uid != geteuid())
		err = -EPERM;
	else
		err = fsutil_dir_for_each(s->fd, refuse_entry, NULL);
	if (err) {
		/* Not ours: stage_remove() must not empty it. */
		close(s->fd);
		s->fd = -1;
		return err;
	}
	/* The agent writes as the task's user. */
	return fchown(s->fd, s->uid, s->gid) ? -errno : 0;
}
