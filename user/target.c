// SPDX-License-Identifier: MIT
/* Finding a task's agent, connecting to it, and taking its device data. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dynsock.h"
#include "json.h"
#include "msprof/protocol.h"
#include "procfs.h"
#include "target.h"
#include "testpoint.h"

#define STAGE_PREFIX ".msprof_stage_"
/* The task's user owns the staging directory: never follow its links. */
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

static int copy_home(const struct passwd *pw, char *home, size_t len)
{
	if (!pw)
		return -ENOENT;
	return snprintf(home, len, "%s", pw->pw_dir) >= (int)len ? -ENAMETOOLONG : 0;
}

/* uid's home in the user database of the task's own root. */
static int passwd_home(int pid, uid_t uid, char *home, size_t len)
{
	struct passwd *pw;
	int fd, err;
	FILE *fp;

	err = procfs_open_in_root(pid, "/etc/passwd", O_RDONLY, &fd);
	if (err)
		return err;
	fp = fdopen(fd, "re");
	if (!fp) {
		err = -errno;
		close(fd);
		return err;
	}
	while ((pw = fgetpwent(fp)) && pw->pw_uid != uid)
		;
	err = copy_home(pw, home, len);
	fclose(fp);
	return err;
}

/* The task's home: its HOME, else its user's home directory. */
static int task_home(const struct target *t, char *home, size_t len)
{
	uid_t uid;
	gid_t gid;
	int err;

	err = procfs_getenv(t->host_pid, "HOME", home, len);
	if (err != -ENOENT)
		return err;
	err = procfs_owner(t->host_pid, &uid, &gid);
	if (err)
		return err;
	/* A container has users of its own. */
	if (t->own_mnt_ns)
		return passwd_home(t->host_pid, uid, home, len);
	return copy_home(getpwuid(uid), home, len);
}

int target_init(struct target *t, int host_pid)
{
	char home[PATH_MAX], root[64];
	bool same_mnt_ns = true;
	int err;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->stage_parent_fd = -1;
	t->host_pid = host_pid;
	if (!procfs_alive(host_pid))
		return -ESRCH;
	err = procfs_ns_pid(host_pid, &t->ns_pid);
	if (!err)
		err = procfs_comm(host_pid, t->comm, sizeof(t->comm));
	if (!err)
		err = procfs_same_ns(host_pid, "mnt", &same_mnt_ns);
	t->own_mnt_ns = !same_mnt_ns;
	if (!err)
		err = task_home(t, home, sizeof(home));
	if (err)
		return err;
	/* Through the task's root: the same path from the host or inside. */
	snprintf(root, sizeof(root), "/proc/%d/root", host_pid);
	if (snprintf(t->sock_path, sizeof(t->sock_path), "%s%s", root, home) >=
	    (int)sizeof(t->sock_path))
		return -ENAMETOOLONG;
	return msprof_socket_path(t->sock_path + strlen(t->sock_path),
				  sizeof(t->sock_path) - strlen(t->sock_path),
				  "", t->ns_pid);
}

static const char *stage_name(const struct target *t)
{
	return strrchr(t->stage, '/') + 1;
}

/*
 * The staging directory goes under output when the task sees output as
 * msprof does, so that rename() takes its files.  A task with a mount
 * namespace of its own cannot see output: the directory goes into its own
 * /tmp, reached through its root, and named with msprof's pid too so that
 * one left by a controller that died is never taken for ours.
 */
static int stage_create(struct target *t, const char *output)
{
	const char *parent = t->own_mnt_ns ? "/tmp" : output;
	char name[64], root[64] = "";
	uid_t uid;
	gid_t gid;
	int fd, err;

	err = procfs_owner(t->host_pid, &uid, &gid);
	if (err)
		return err;
	if (t->own_mnt_ns) {
		snprintf(name, sizeof(name), STAGE_PREFIX "%d_%d", t->ns_pid,
			 (int)getpid());
		snprintf(root, sizeof(root), "/proc/%d/root", t->host_pid);
		err = procfs_open_in_root(t->host_pid, parent,
					  O_PATH | O_DIRECTORY,
					  &t->stage_parent_fd);
	} else {
		snprintf(name, sizeof(name), STAGE_PREFIX "%d", t->host_pid);
		t->stage_parent_fd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (t->stage_parent_fd < 0)
			err = -errno;
	}
	if (err)
		return err;
	if (snprintf(t->task_stage, sizeof(t->task_stage), "%s/%s", parent,
		     name) >= (int)sizeof(t->task_stage) ||
	    snprintf(t->stage, sizeof(t->stage), "%s%s", root,
		     t->task_stage) >= (int)sizeof(t->stage))
		err = -ENAMETOOLONG;
	/*
	 * Under output one left by an earlier msprof is reused; in a /tmp,
	 * where anyone can write, only a new one is ours.
	 */
	else if (mkdirat(t->stage_parent_fd, name, 0700) &&
		 (errno != EEXIST || t->own_mnt_ns))
		err = -errno;
	if (err) {
		*t->stage = '\0';	/* nothing of ours to remove */
		return err;
	}
	fd = openat(t->stage_parent_fd, name, DIR_FLAGS);
	if (fd < 0)
		return -errno;
	/* The agent writes as the task's user. */
	err = fchown(fd, uid, gid) ? -errno : 0;
	close(fd);
	return err;
}

/* The parameters: where the agent flushes, named as the task sees it. */
static int send_params(struct target *t)
{
	char *json = NULL;
	size_t len;
	FILE *fp;
	int err;

	fp = open_memstream(&json, &len);
	if (!fp)
		return -errno;
	/* Escaped: the resolved output path may hold what --output may not. */
	fputs("{\"output\": ", fp);
	json_put_str(fp, t->task_stage);
	fprintf(fp, ", \"pid\": %d}", t->ns_pid);
	err = fclose(fp) ? -errno : dynsock_send_params(t->fd, json);
	free(json);
	return err;
}

int target_connect(struct target *t, const char *output)
{
	int err;

	err = stage_create(t, output);
	testpoint("after-stage");
	if (!err)
		err = dynsock_connect(t->sock_path, &t->fd);
	if (!err)
		err = send_params(t);
	if (err)
		target_disconnect(t);
	return err;
}

typedef int (*entry_fn)(int dir, const char *name, void *ctx);

/* Calls fn on every entry of dir; the first failure is returned. */
static int for_each_entry(int dir, entry_fn fn, void *ctx)
{
	struct dirent *de;
	int fd, ret, err = 0;
	DIR *d;

	/* An open file of its own: readdir() starts at the beginning. */
	fd = openat(dir, ".", DIR_FLAGS);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		err = -errno;
		close(fd);
		return err;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ret = fn(dir, de->d_name, ctx);
		err = err ?: ret;
	}
	closedir(d);
	return err;
}

/*
 * Copies a regular file.  What else the agent may have left, a link or a
 * FIFO, is no device data: msprof (root) must not read through it.
 */
static int copy_file_at(int from, const char *name, int to)
{
	struct stat st;
	int in, out, err;
	ssize_t n;

	/* O_NONBLOCK: opening a FIFO must not hang msprof. */
	in = openat(from, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0)
		return -errno;
	if (fstat(in, &st)) {
		err = -errno;
		goto out_in;
	}
	if (!S_ISREG(st.st_mode)) {
		err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto out_in;
	}
	out = openat(to, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		err = -errno;
		goto out_in;
	}
	do
		n = sendfile(out, in, NULL, 1 << 30);
	while (n > 0);
	err = n < 0 ? -errno : 0;
	if (close(out) && !err)
		err = -errno;
out_in:
	close(in);
	return err;
}

static int move_at(int from, const char *name, void *to);

/* Moves the entries of one directory into another. */
static int move_entries(int from_at, const char *from_name, int to_at,
			const char *to_name)
{
	int from, to, err;

	from = openat(from_at, from_name, DIR_FLAGS);
	if (from < 0)
		return -errno;
	to = openat(to_at, to_name, DIR_FLAGS);
	if (to < 0) {
		err = -errno;
		close(from);
		return err;
	}
	err = for_each_entry(from, move_at, &to);
	close(to);
	close(from);
	return err;
}

/*
 * rename(), unless the staging directory is on another filesystem than the
 * PROF_ directory, as a task's own /tmp usually is: then copy and unlink.
 */
static int move_at(int from, const char *name, void *to)
{
	int to_fd = *(int *)to, flags = 0, err;

	if (!renameat(from, name, to_fd, name))
		return 0;
	if (errno != EXDEV)
		return -errno;
	err = copy_file_at(from, name, to_fd);
	if (err == -EISDIR) {
		flags = AT_REMOVEDIR;
		if (mkdirat(to_fd, name, 0755) && errno != EEXIST)
			return -errno;
		err = move_entries(from, name, to_fd, name);
	}
	if (err)
		return err;
	return unlinkat(from, name, flags) ? -errno : 0;
}

int target_collect_device_data(struct target *t)
{
	return move_entries(t->stage_parent_fd, stage_name(t), AT_FDCWD, t->dir);
}

/* rm -r of one entry. */
static int remove_at(int dir, const char *name, void *ctx)
{
	int sub, err;

	(void)ctx;
	if (!unlinkat(dir, name, 0))
		return 0;
	if (errno != EISDIR)
		return -errno;
	sub = openat(dir, name, DIR_FLAGS);
	if (sub < 0)
		return -errno;
	err = for_each_entry(sub, remove_at, NULL);
	close(sub);
	if (unlinkat(dir, name, AT_REMOVEDIR) && !err)
		err = -errno;
	return err;
}

void target_disconnect(struct target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	/*
	 * What the agent flushed after the last collect (a connection that
	 * ended inside a window) is ours to remove too.
	 */
	if (*t->stage)
		remove_at(t->stage_parent_fd, stage_name(t), NULL);
	*t->stage = '\0';
	if (t->stage_parent_fd >= 0)
		close(t->stage_parent_fd);
	t->stage_parent_fd = -1;
}
