// SPDX-License-Identifier: MIT
/*
 * A stand-in for a CANN task's dynamic profiling server, written from the
 * facts in msprof-output-spec.md §1, so that msprof's controller can be
 * tested against a server that behaves as the real one does on the wire:
 * one recv() per message with a 1 s receive timeout, an idle counter that
 * is never reset, the session ended by {7,0} then a second QUIT reply
 * (also after a QUIT: three messages), a connection it never closes, a
 * bad parameters message that ends the server for good, and 128 accepts.
 * It profiles nothing; it logs each message to stdout, one line each.
 *
 *   real_dynserver [--idle N] [--max-msgs N] [--max-accepts N]
 *                  [--no-device] [--fail-stop]
 *
 * --idle: idle receive timeouts allowed outside collection (1800);
 * --max-msgs: requests past which the session ends (100);
 * --max-accepts: connections served (128); --no-device: START answers
 * NOT_SET_DEVICE (no aclrtSetDevice seen); --fail-stop: STOP and QUIT
 * fail to stop a running collection.  The process lives on after its
 * server has ended, as a task does, until it is killed.
 */
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "msprof/protocol.h"

struct server {
	unsigned long idle_limit;
	unsigned long max_msgs;
	unsigned long max_accepts;
	bool no_device;
	bool fail_stop;
	bool collecting;
	int fd;			/* the client's connection */
};

static void send_msg(const struct server *srv, int32_t type, int32_t status)
{
	struct msprof_msg msg = { .type = type, .status = status };
	ssize_t n = send(srv->fd, &msg, sizeof(msg), 0);

	printf("send %d %d%s\n", type, status, n == sizeof(msg) ? "" : " (failed)");
}

static int32_t do_start(struct server *srv)
{
	if (srv->collecting)
		return MSPROF_ALREADY_START;
	if (srv->no_device)
		return MSPROF_NOT_SET_DEVICE;
	srv->collecting = true;
	return MSPROF_SUCCESS;
}

static int32_t do_stop(struct server *srv)
{
	if (!srv->collecting)
		return MSPROF_NOT_START;
	if (srv->fail_stop)
		return MSPROF_FAIL;
	srv->collecting = false;
	return MSPROF_SUCCESS;
}

/* QUIT stops any collection; a failed stop still ends it. */
static int32_t do_quit(struct server *srv)
{
	int32_t status = MSPROF_SUCCESS;

	if (srv->collecting && srv->fail_stop)
		status = MSPROF_FAIL;
	srv->collecting = false;
	return status;
}

/* One session: requests until QUIT, a limit, or a bad message. */
static void serve(struct server *srv)
{
	unsigned long idle = 0, msgs = 0;
	struct msprof_msg req;
	ssize_t n;

	for (;;) {
		n = recv(srv->fd, &req, sizeof(req), 0);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (!srv->collecting && ++idle > srv->idle_limit) {
				printf("idle %lu: session ends\n", idle);
				break;
			}
			continue;
		}
		if (n != sizeof(req)) {
			printf("recv %zd bytes: session ends\n", n);
			break;
		}
		/* The status of a request is not looked at. */
		printf("recv %d\n", req.type);
		if (req.type == MSPROF_START_REQ) {
			send_msg(srv, MSPROF_START_RSP, do_start(srv));
		} else if (req.type == MSPROF_STOP_REQ) {
			send_msg(srv, MSPROF_STOP_RSP, do_stop(srv));
		} else if (req.type == MSPROF_QUIT_REQ) {
			send_msg(srv, MSPROF_QUIT_RSP, do_quit(srv));
			break;
		} else {
			printf("bad type: session ends\n");
			break;
		}
		if (++msgs > srv->max_msgs) {
			printf("request %lu: session ends\n", msgs);
			break;
		}
	}
	send_msg(srv, MSPROF_DISCONNECT_RSP, MSPROF_SUCCESS);
	send_msg(srv, MSPROF_QUIT_RSP, do_quit(srv));
	/* The connection is never closed here: the client must. */
}

static int set_rcvtimeo(int fd)
{
	struct timeval tv = { .tv_sec = 1 };

	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* Parameters, then the session; false when the server is to end. */
static bool take_client(struct server *srv)
{
	struct msprof_params_msg params;
	ssize_t n;

	if (set_rcvtimeo(srv->fd))
		return false;
	n = recv(srv->fd, &params, sizeof(params), 0);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		/* Left open, unserved, as the real server leaves it. */
		printf("params timeout\n");
		return true;
	}
	if (n != sizeof(params)) {
		printf("params %zd bytes: server ends\n", n);
		send_msg(srv, MSPROF_PARAMS_RSP, MSPROF_FAIL);
		close(srv->fd);
		return false;
	}
	printf("params %u bytes: %.*s\n", params.len,
	       params.len < sizeof(params.data) ? (int)params.len :
	       (int)sizeof(params.data), params.data);
	send_msg(srv, MSPROF_PARAMS_RSP, MSPROF_SUCCESS);
	serve(srv);
	return true;
}

static int listen_at(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -1;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    chmod(path, 0600) || listen(fd, 100) || set_rcvtimeo(fd)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* <pw_dir without a trailing slash>/dynamic_profiling_socket_<key> */
static int socket_path(char *path, size_t len)
{
	struct passwd *pw = getpwuid(getuid());
	const char *key = getenv("DYNAMIC_PROFILING_KEY_PID");
	long pid = key ? strtol(key, NULL, 10) : 0;
	size_t hl;

	if (!pw)
		return -1;
	hl = strlen(pw->pw_dir);
	while (hl && pw->pw_dir[hl - 1] == '/')
		hl--;
	if (pid <= 0)
		pid = getpid();
	return snprintf(path, len, "%.*s/%s%ld", (int)hl, pw->pw_dir,
			MSPROF_SOCKET_PREFIX, pid) >= (int)len ? -1 : 0;
}

static int parse_args(struct server *srv, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-device"))
			srv->no_device = true;
		else if (!strcmp(argv[i], "--fail-stop"))
			srv->fail_stop = true;
		else if (i + 1 < argc && !strcmp(argv[i], "--idle"))
			srv->idle_limit = strtoul(argv[++i], NULL, 10);
		else if (i + 1 < argc && !strcmp(argv[i], "--max-msgs"))
			srv->max_msgs = strtoul(argv[++i], NULL, 10);
		else if (i + 1 < argc && !strcmp(argv[i], "--max-accepts"))
			srv->max_accepts = strtoul(argv[++i], NULL, 10);
		else
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct server srv = {
		.idle_limit = MSPROF_IDLE_TIMEOUT_S,
		.max_msgs = MSPROF_MAX_MSGS,
		.max_accepts = 128,
	};
	unsigned long accepts = 0;
	char path[108];
	int lfd;

	if (parse_args(&srv, argc, argv)) {
		fprintf(stderr, "usage: %s [--idle N] [--max-msgs N] [--max-accepts N] [--no-device] [--fail-stop]\n",
			argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (socket_path(path, sizeof(path)))
		return 1;
	lfd = listen_at(path);
	if (lfd < 0) {
		perror(path);
		return 1;
	}
	printf("listening %s\n", path);
	while (accepts < srv.max_accepts) {
		srv.fd = accept(lfd, NULL, NULL);
		if (srv.fd < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (srv.fd < 0)
			break;
		accepts++;
		printf("accept %lu\n", accepts);
		if (!take_client(&srv))
			break;
	}
	unlink(path);
	close(lfd);
	printf("server ended after %lu accepts\n", accepts);
	for (;;)
		pause();
}
