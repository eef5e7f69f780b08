/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_DYNSOCK_H
#define MSPROF_DYNSOCK_H

/* The controller's end of the dynamic profiling socket. */
int dynsock_connect(const char *path, int *fd);
/* Sends the parameters message and waits for PARAMS_RSP. */
int dynsock_send_params(int fd, const char *json);
/*
 * Sends a request and waits for its response; *status is the agent's
 * answer.  -ECONNRESET when the agent closed or disconnected us.
 */
int dynsock_request(int fd, int type, int *status);

#endif
