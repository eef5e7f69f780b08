/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_DYNSOCK_H
#define MSPROF_DYNSOCK_H

#include <stddef.h>

/* How long a connect may find the agent's accept queue full. */
#define DYNSOCK_CONNECT_S 10
/* How long the messages a real server sends at a session's end may take. */
#define DYNSOCK_DRAIN_MS 1000

/*
 * The controller's end of the dynamic profiling socket.  Every call waits
 * a bounded time: -EAGAIN when the agent accepted no connection within
 * DYNSOCK_CONNECT_S, -ETIMEDOUT when it did not answer within
 * dynsock_reply_timeout_s(), -EINTR when a signal came in the meantime.
 */
int dynsock_connect(const char *path, int *fd);
/* Sends the parameters message and waits for PARAMS_RSP. */
int dynsock_send_params(int fd, const char *json);
/*
 * Sends a request and waits for its response; *status is the agent's
 * answer.  -ECONNRESET when the agent closed the connection; -ESHUTDOWN
 * when its server ended the session instead of answering (its DISCONNECT,
 * after which it stopped any collection: *status is then its QUIT reply's
 * status, or -1 if none came).  After QUIT's reply, the DISCONNECT and
 * QUIT reply a real server sends next are read and dropped.
 */
int dynsock_request(int fd, int type, int *status);
/* The most agents dynsock_request_all() asks at once. */
#define DYNSOCK_BATCH 64
/*
 * dynsock_request() to n agents (DYNSOCK_BATCH at most, else -E2BIG for
 * each) at once: the request is sent to all, then their replies are read
 * as they come, all by one deadline, so that each waits for the slowest
 * alone rather than for the sum.  err[i] and status[i] are fds[i]'s, as
 * dynsock_request() returns and sets them.
 */
void dynsock_request_all(const int *fds, size_t n, int type, int *status,
			 int *err);
/*
 * Between requests, without waiting for one to come: -ESHUTDOWN (*status
 * as above) when the server has ended the session on its own (its idle
 * or request limit), -ECONNRESET when it closed, -EPROTO for a message
 * nobody asked for, 0 when nothing came.
 */
int dynsock_check_ended(int fd, int *status);
/* Seconds the agent has to send a reply of this type. */
unsigned int dynsock_reply_timeout_s(int type);

#endif
