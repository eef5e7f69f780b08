// SPDX-License-Identifier: MIT
/* Helpers for the dynamic profiling socket protocol, shared by both ends. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
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

int msprof_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int msprof_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		/* A peer that went away must not kill us with SIGPIPE. */
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
