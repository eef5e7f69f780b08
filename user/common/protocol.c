// SPDX-License-Identifier: MIT
/* Helpers for the dynamic profiling socket protocol, shared by both ends. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "msprof/protocol.h"

int msprof_socket_path(char *buf, size_t len, const char *home, int pid)
{
	int n = snprintf(buf, len, "%s/%s%d", home, MSPROF_SOCKET_PREFIX, pid);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int msprof_params_pack(struct msprof_params_msg *msg, const char *json)
{
	size_t n = strlen(json);

	/* Keep a NUL inside data so the receiver can treat it as a string. */
	if (n >= sizeof(msg->data))
		return -E2BIG;
	memset(msg, 0, sizeof(*msg));
	msg->len = (uint32_t)n;
	memcpy(msg->data, json, n);
	return 0;
}

/*
 * Only what the agent needs from its parameters: a flat object whose string
 * values may hold \" and \\ escapes.
 */
int msprof_json_get_str(const char *json, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);
	const char *p = json;
	size_t n = 0;

	while ((p = strchr(p, '"'))) {
		p++;
		if (strncmp(p, key, klen) || p[klen] != '"') {
			/* Skip over this string, escapes included. */
			while (*p && *p != '"')
				p += (*p == '\\' && p[1]) ? 2 : 1;
			if (*p)
				p++;
			continue;
		}
		p += klen + 1;
		p += strspn(p, " \t\r\n");
		if (*p++ != ':')
			return -ENOENT;
		p += strspn(p, " \t\r\n");
		if (*p++ != '"')
			return -ENOENT;
		for (; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1])
				p++;
			if (n + 1 >= len)
				return -ENAMETOOLONG;
			out[n++] = *p;
		}
		if (*p != '"')
			return -ENOENT;
		out[n] = '\0';
		return 0;
	}
	return -ENOENT;
}

const char *msprof_msg_type_name(int32_t type)
{
	static const char *const names[] = {
		[MSPROF_PARAMS_RSP] = "PARAMS_RSP",
		[MSPROF_START_REQ] = "START_REQ",
		[MSPROF_START_RSP] = "START_RSP",
		[MSPROF_STOP_REQ] = "STOP_REQ",
		[MSPROF_STOP_RSP] = "STOP_RSP",
		[MSPROF_QUIT_REQ] = "QUIT_REQ",
		[MSPROF_QUIT_RSP] = "QUIT_RSP",
		[MSPROF_DISCONNECT_RSP] = "DISCONNECT_RSP",
	};

	if (type < 0 || (size_t)type >= sizeof(names) / sizeof(names[0]))
		return "UNKNOWN";
	return names[type];
}

const char *msprof_msg_status_name(int32_t status)
{
	static const char *const names[] = {
		[MSPROF_SUCCESS] = "success",
		[MSPROF_FAIL] = "failed",
		[MSPROF_ALREADY_START] = "collection already started",
		[MSPROF_NOT_SET_DEVICE] = "no device set in the task",
		[MSPROF_NOT_START] = "collection not started",
	};

	if (status < 0 || (size_t)status >= sizeof(names) / sizeof(names[0]))
		return "unknown status";
	return names[status];
}

uint64_t msprof_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int msprof_signal_fd(int *fd)
{
	sigset_t blocked;

	if (sigprocmask(SIG_BLOCK, NULL, &blocked))
		return -errno;
	*fd = signalfd(-1, &blocked, SFD_CLOEXEC | SFD_NONBLOCK);
	return *fd < 0 ? -errno : 0;
}

int msprof_wait_by(int fd, short events, uint64_t deadline, int wake_fd)
{
	struct pollfd p[2] = {
		{ .fd = fd, .events = events },
		{ .fd = wake_fd, .events = POLLIN },
	};
	uint64_t now;
	int n;

	while ((now = msprof_now_ms()) < deadline) {
		n = poll(p, 2, deadline - now > INT_MAX ? INT_MAX :
			 (int)(deadline - now));
		if (n < 0 && errno != EINTR)
			return -errno;
		/* Readiness first: an answer that is there is taken. */
		if (n > 0 && p[0].revents)
			return 0;
		if (n > 0 && p[1].revents)
			return -EINTR;
	}
	return -ETIMEDOUT;
}

/* Moves len bytes either way; the socket's own blocking mode does not matter. */
static int transfer_by(int fd, char *p, size_t len, bool out,
		       uint64_t deadline, int wake_fd)
{
	ssize_t n;
	int err;

	while (len) {
		/* A peer that went away must not kill us with SIGPIPE. */
		n = out ? send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL) :
			  recv(fd, p, len, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			err = msprof_wait_by(fd, out ? POLLOUT : POLLIN,
					     deadline, wake_fd);
			if (err)
				return err;
			continue;
		}
		if (n < 0)
			return errno == EPIPE ? -ECONNRESET : -errno;
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int msprof_read_by(int fd, void *buf, size_t len, uint64_t deadline,
		   int wake_fd)
{
	return transfer_by(fd, buf, len, false, deadline, wake_fd);
}

int msprof_write_by(int fd, const void *buf, size_t len, uint64_t deadline,
		    int wake_fd)
{
	return transfer_by(fd, (char *)buf, len, true, deadline, wake_fd);
}
