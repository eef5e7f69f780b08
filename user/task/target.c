// SPDX-License-Identifier: MIT
/*
 * A task under control: who it is, connecting to its agent with a new
 * stage, taking the stage's device data into the window, disconnecting.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common/testpoint.h"
#include "dynsock.h"
#include "msprof/protocol.h"
#include "params.h"
#include "proc/procfs.h"
#include "target.h"

int target_init(struct target *t, int host_pid)
{
	bool same_mnt_ns = true;
	int err;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	stage_init(&t->stage);
	t->dir_fd = -1;
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
		t->sock.err = agent_socket_find(&t->sock, host_pid, t->ns_pid,
						t->own_mnt_ns);
	return err;
}

/*
 * The parameters, as a CANN runtime reads them: result_dir is the stage,
 * named as the task sees it.
 */
static int send_params(struct target *t, const struct params_switches *sw)
{
	char json[MSPROF_PARAMS_LEN];
	int err;

	err = params_build(sw, t->stage.task_path, "all", json, sizeof(json));
	if (err == -EINVAL)
		return -EILSEQ;
	return err ?: dynsock_send_params(t->fd, json);
}

int target_connect(struct target *t, const char *output, int out,
		   const struct params_switches *sw)
{
	int err;

	err = stage_create(&t->stage, t->host_pid, t->own_mnt_ns, output, out);
	testpoint("after-stage");
	if (!err)
		err = agent_socket_connect(&t->sock, t->host_pid, t->stage.uid,
					   &t->fd);
	if (!err)
		err = send_params(t, sw);
	if (err)
		target_disconnect(t);
	return err;
}

int target_collect_device_data(struct target *t, struct fsutil_budget *b)
{
	int err = stage_copy_take(&t->copied, &t->stage, t->dir_fd, b);

	if (err && !t->device_err)
		t->device_err = err;
	return err;
}

void target_window_reset(struct target *t)
{
	stage_copy_reset(&t->copied);
	t->device_err = 0;
	t->server_ended = false;
}

int target_disconnect(struct target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	return stage_remove(&t->stage);
}
