/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_DYNSOCK_H
#define MSPROF_DYNSOCK_H

/* How long a connect may find the agent's accept queue full. */
#define DYNSOCK_CONNECT_S 10

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
 * answer.  -ECONNRESET when the agent closed or disconnected us.
 */
int dynsock_request(int fd, int type, int *status);
/* Seconds the agent has to send a reply of this type. */
unsigned int dynsock_reply_timeout_s(int type);

#endif
