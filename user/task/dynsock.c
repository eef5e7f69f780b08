// SPDX-License-Identifier: MIT
/*
 * Talking to the agent inside the task over its Unix socket.  Every wait
 * has a deadline, and a signal msprof takes (it blocks them and reads them
 * from a signalfd in its event loop) ends any wait at once with -EINTR,
 * the signal left pending for the loop to see.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "dynsock.h"
#include "msprof/protocol.h"

/* How often a connect to a full accept queue is tried again. */
#define CONNECT_RETRY_MS 20

unsigned int dynsock_reply_timeout_s(int type)
{
	switch (type) {
	case MSPROF_PARAMS_RSP:
		/* Behind a window the agent lets go (server.c) and its flush. */
		return 15;
	case MSPROF_START_RSP:
		/* A device runtime's tracing may take a while to start. */
		return 20;
	case MSPROF_STOP_RSP:
	case MSPROF_QUIT_RSP:
		/* The agent flushes the window's device data first. */
		return 300;
	default:
		return 10;
	}
}

/*
 * A full accept queue answers a non-blocking connect with EAGAIN at once
 * (the agent serves one client at a time): try again until the deadline.
 */
static int connect_by(int s, const struct sockaddr_un *addr, int sig)
{
	uint64_t deadline = msprof_now_ms() + DYNSOCK_CONNECT_S * 1000;
	uint64_t next;
	int err;

	while (connect(s, (const struct sockaddr *)addr, sizeof(*addr))) {
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		next = msprof_now_ms() + CONNECT_RETRY_MS;
		if (next > deadline)
			return -EAGAIN;
		err = msprof_wait_by(-1, 0, next, sig);
		if (err != -ETIMEDOUT)
			return err;
	}
	return 0;
}

int dynsock_connect(const char *path, int *fd)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int s, sig, err;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	err = msprof_signal_fd(&sig);
	if (err)
		return err;
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	err = s < 0 ? -errno : connect_by(s, &addr, sig);
	close(sig);
	if (err) {
		if (s >= 0)
			close(s);
		return err;
	}
	*fd = s;
	return 0;
}

/*
 * After its DISCONNECT a server stops its collection and sends the QUIT
 * reply that says how that went: waited for as a QUIT reply is, since the
 * device data it flushes is only complete then.  -ESHUTDOWN either way:
 * the session is over.
 */
static int read_session_end(int fd, int sig, int *status)
{
	uint64_t deadline = msprof_now_ms() +
			    dynsock_reply_timeout_s(MSPROF_QUIT_RSP) * 1000ull;
	struct msprof_msg rsp;

	*status = -1;
	if (!msprof_read_by(fd, &rsp, sizeof(rsp), deadline, sig) &&
	    rsp.type == MSPROF_QUIT_RSP)
		*status = rsp.status;
	return -ESHUTDOWN;
}

/*
 * Reads the reply of the type wanted to a request sent on fd, by the
 * deadline.
 */
static int read_reply(int fd, int want, uint64_t deadline, int sig,
		      int *status)
{
	struct msprof_msg rsp;
	int err;

	err = msprof_read_by(fd, &rsp, sizeof(rsp), deadline, sig);
	if (!err && rsp.type == MSPROF_DISCONNECT_RSP)
		err = read_session_end(fd, sig, status);
	else if (!err && rsp.type != want)
		err = -EPROTO;
	else if (!err)
		*status = rsp.status;
	/*
	 * A real server ends the session after every QUIT, with a DISCONNECT
	 * and a second QUIT reply; it never closes the connection itself.
	 * Read them (an agent that closes instead ends the wait at once),
	 * so that the server does not write into a closed socket.
	 */
	if (!err && want == MSPROF_QUIT_RSP &&
	    !msprof_read_by(fd, &rsp, sizeof(rsp),
			    msprof_now_ms() + DYNSOCK_DRAIN_MS, sig) &&
	    rsp.type == MSPROF_DISCONNECT_RSP)
		read_session_end(fd, sig, &(int){ 0 });
	return err;
}

/* Sends msg and reads the reply of the type wanted, by one deadline. */
static int exchange(int fd, const void *msg, size_t len, int want,
		    int *status)
{
	uint64_t deadline = msprof_now_ms() +
			    dynsock_reply_timeout_s(want) * 1000ull;
	int sig, err;

	err = msprof_signal_fd(&sig);
	if (err)
		return err;
	err = msprof_write_by(fd, msg, len, deadline, sig);
	if (!err)
		err = read_reply(fd, want, deadline, sig, status);
	close(sig);
	return err;
}

int dynsock_send_params(int fd, const char *json)
{
	struct msprof_params_msg msg;
	int err, status;

	err = msprof_params_pack(&msg, json);
	if (!err)
		err = exchange(fd, &msg, sizeof(msg), MSPROF_PARAMS_RSP,
			       &status);
	if (!err && status != MSPROF_SUCCESS)
		err = -EINVAL;
	return err;
}

int dynsock_request(int fd, int type, int *status)
{
	int err;

	dynsock_request_all(&fd, 1, type, status, &err);
	return err;
}

/* The milliseconds poll() may wait until deadline. */
static int ms_until(uint64_t deadline)
{
	uint64_t now = msprof_now_ms();

	if (now >= deadline)
		return 0;
	return deadline - now > INT_MAX ? INT_MAX : (int)(deadline - now);
}

void dynsock_request_all(const int *fds, size_t n, int type, int *status,
			 int *err)
{
	/* The status of a request means nothing; a real client sends any. */
	struct msprof_msg msg = { .type = type, .status = MSPROF_SUCCESS };
	uint64_t deadline = msprof_now_ms() +
			    dynsock_reply_timeout_s(type + 1) * 1000ull;
	struct pollfd p[DYNSOCK_BATCH + 1];
	size_t i, waiting = 0;
	int sig = -1, ready, end;

	if (n > DYNSOCK_BATCH) {
		for (i = 0; i < n; i++)
			err[i] = -E2BIG;
		return;
	}
	end = msprof_signal_fd(&sig);
	for (i = 0; i < n; i++) {
		err[i] = end ?: msprof_write_by(fds[i], &msg, sizeof(msg),
						deadline, sig);
		p[i] = (struct pollfd){ .fd = err[i] ? -1 : fds[i],
					.events = POLLIN };
		waiting += !err[i];
	}
	p[n] = (struct pollfd){ .fd = sig, .events = POLLIN };
	while (waiting && !end) {
		ready = poll(p, n + 1, ms_until(deadline));
		if (ready < 0 && errno != EINTR)
			end = -errno;
		else if (!ready)
			end = -ETIMEDOUT;
		/* Readiness first: an answer that is there is taken. */
		for (i = 0; ready > 0 && i < n; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			err[i] = read_reply(fds[i], type + 1, deadline, sig,
					    &status[i]);
			p[i].fd = -1;
			waiting--;
		}
		if (ready > 0 && p[n].revents)
			end = -EINTR;
	}
	for (i = 0; i < n; i++)
		if (p[i].fd >= 0)
			err[i] = end;
	if (sig >= 0)
		close(sig);
}

int dynsock_check_ended(int fd, int *status)
{
	struct msprof_msg rsp;
	ssize_t n;
	int sig, err;

	n = recv(fd, &rsp, sizeof(rsp), MSG_PEEK | MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	if (!n)
		return -ECONNRESET;
	err = msprof_signal_fd(&sig);
	if (err)
		return err;
	err = msprof_read_by(fd, &rsp, sizeof(rsp),
			     msprof_now_ms() + DYNSOCK_DRAIN_MS, sig);
	if (!err)
		err = rsp.type == MSPROF_DISCONNECT_RSP ?
		      read_session_end(fd, sig, status) : -EPROTO;
	close(sig);
	return err;
}
