// SPDX-License-Identifier: MIT
/* Finding a task's agent, connecting to it, and taking its device data. */
#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dynsock.h"
#include "msprof/protocol.h"
#include "procfs.h"
#include "target.h"

/* The task's home: its HOME, else its user's home directory. */
static int task_home(int pid, char *home, size_t len)
{
	struct passwd *pw;
	uid_t uid;
	gid_t gid;
	int err;

	err = procfs_getenv(pid, "HOME", home, len);
	if (err != -ENOENT)
		return err;
	err = procfs_owner(pid, &uid, &gid);
	if (err)
		return err;
	pw = getpwuid(uid);
	if (!pw)
		return -ENOENT;
	return snprintf(home, len, "%s", pw->pw_dir) >= (int)len ? -ENAMETOOLONG : 0;
}

int target_init(struct target *t, int host_pid)
{
	char home[PATH_MAX], root[64];
	int err;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->host_pid = host_pid;
	if (!procfs_alive(host_pid))
		return -ESRCH;
	err = procfs_ns_pid(host_pid, &t->ns_pid);
	if (!err)
		err = procfs_comm(host_pid, t->comm, sizeof(t->comm));
	if (!err)
		err = task_home(host_pid, home, sizeof(home));
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

int target_connect(struct target *t, const char *output)
{
	char json[PATH_MAX + 128];
	uid_t uid;
	gid_t gid;
	int err;

	if (snprintf(t->stage, sizeof(t->stage), "%s/.msprof_stage_%d", output,
		     t->host_pid) >= (int)sizeof(t->stage))
		return -ENAMETOOLONG;
	if (mkdir(t->stage, 0700) && errno != EEXIST)
		return -errno;
	/* The agent writes as the task's user. */
	err = procfs_owner(t->host_pid, &uid, &gid);
	if (!err && chown(t->stage, uid, gid))
		err = -errno;
	if (err)
		return err;
	err = dynsock_connect(t->sock_path, &t->fd);
	if (err)
		return err;
	snprintf(json, sizeof(json), "{\"output\": \"%s\", \"pid\": %d}",
		 t->stage, t->ns_pid);
	err = dynsock_send_params(t->fd, json);
	if (err)
		target_disconnect(t);
	return err;
}

int target_collect_device_data(struct target *t)
{
	char from[PATH_MAX * 2], to[PATH_MAX * 2];
	struct dirent *de;
	int err = 0;
	DIR *d;

	d = opendir(t->stage);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(from, sizeof(from), "%s/%s", t->stage, de->d_name);
		snprintf(to, sizeof(to), "%s/%s", t->dir, de->d_name);
		if (rename(from, to) && !err)
			err = -errno;
	}
	closedir(d);
	return err;
}

void target_disconnect(struct target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	if (*t->stage)
		rmdir(t->stage);
}
