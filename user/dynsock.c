// SPDX-License-Identifier: MIT
/* Talking to the agent inside the task over its Unix socket. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "dynsock.h"
#include "msprof/protocol.h"

/* Long enough for the agent to flush a window's device data. */
#define DYNSOCK_REPLY_TIMEOUT_S 60

int dynsock_connect(const char *path, int *fd)
{
	struct timeval tv = { .tv_sec = DYNSOCK_REPLY_TIMEOUT_S };
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int s, err;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    connect(s, (struct sockaddr *)&addr, sizeof(addr))) {
		err = -errno;
		close(s);
		return err;
	}
	*fd = s;
	return 0;
}

static int read_reply(int fd, int want, int *status)
{
	struct msprof_msg msg;
	int err = msprof_read_full(fd, &msg, sizeof(msg));

	if (err)
		return err == -EAGAIN ? -ETIMEDOUT : err;
	if (msg.type == MSPROF_DISCONNECT_RSP)
		return -ECONNRESET;
	if (msg.type != want)
		return -EPROTO;
	*status = msg.status;
	return 0;
}

int dynsock_send_params(int fd, const char *json)
{
	struct msprof_params_msg msg;
	int err, status;

	err = msprof_params_pack(&msg, json);
	if (!err)
		err = msprof_write_full(fd, &msg, sizeof(msg));
	if (!err)
		err = read_reply(fd, MSPROF_PARAMS_RSP, &status);
	if (!err && status != MSPROF_SUCCESS)
		err = -EINVAL;
	return err;
}

int dynsock_request(int fd, int type, int *status)
{
	struct msprof_msg msg = { .type = type, .status = MSPROF_SUCCESS };
	int err = msprof_write_full(fd, &msg, sizeof(msg));

	if (err == -EPIPE)
		return -ECONNRESET;
	if (err)
		return err;
	return read_reply(fd, type + 1, status);
}
