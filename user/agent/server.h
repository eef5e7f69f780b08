/* SPDX-License-Identifier: MIT */
/*
 * The agent's socket server: the thread that owns the task's
 * dynamic_profiling_socket_<pid> and answers msprof.
 */
#ifndef MSPROF_AGENT_SERVER_H
#define MSPROF_AGENT_SERVER_H

#include <stdint.h>
#include <semaphore.h>
#include <sys/types.h>
#include <sys/un.h>

#include "devices.h"

#pragma GCC visibility push(hidden)

/* A connection's deadlines (see wait_request() in server.c), in ms. */
struct agent_server_limits {
	unsigned int params_ms;		/* the whole parameters message */
	unsigned int request_ms;	/* a request once its first byte came */
	unsigned int yield_ms;		/* a window, once another client waits */
	uint64_t idle_ms;		/* idle outside a window */
};

struct agent_server {
	int fd;			/* listening socket, -1 until bound */
	pid_t owner;		/* a forked child inherits fd but owns nothing */
	dev_t dev;		/* the socket file, so that exit removes only ours */
	ino_t ino;
	struct agent_server_limits limits;
	int conn_fd;		/* the connection being served, -1 if none */
	sem_t finished;		/* posted when the server thread ends */
	struct agent_devices *devs;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/* Binds the task's socket and starts the server thread.  0 or -errno. */
int agent_server_start(struct agent_server *srv);
/*
 * Serves one connection to its end (the server thread's work, callable
 * alone): srv->fd is the listening socket, or -1 if there is none.  *next
 * is the client accepted meanwhile, to be served next, or -1.
 */
void agent_server_serve(const struct agent_server *srv, int fd, int *next);
/*
 * At exit: removes the socket file if it is still ours, stops accepting,
 * and ends a connection in a window so that its device data is flushed
 * before the process is gone.
 */
void agent_server_stop(struct agent_server *srv);

#pragma GCC visibility pop

#endif
