// SPDX-License-Identifier: MIT
/*
 * Bytes from a client of the agent's socket: the agent serves them over a
 * socketpair, as its server thread serves an accepted connection.  The
 * client's end is shut after the input, so nothing here can wait for long;
 * the deadlines are small all the same, so that a wait that slipped in
 * shows up as a slow input, not a stuck fuzzer.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#include "msprof/protocol.h"
#include "agent/devices.h"
#include "agent/server.h"

/* More than a session can use: 101 requests after the parameters. */
#define MAX_INPUT (sizeof(struct msprof_params_msg) + \
		   (MSPROF_MAX_MSGS + 8) * sizeof(struct msprof_msg))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Backends open once, as in a task, and serve every input. */
	static struct agent_devices devs;
	const struct agent_server srv = {
		.fd = -1,
		.devs = &devs,
		.limits = { .params_ms = 10, .request_ms = 10, .yield_ms = 10,
			    .idle_ms = 10 },
	};
	int sv[2], next;

	if (size > MAX_INPUT ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 0;
	if (!msprof_write_by(sv[0], data, size, msprof_now_ms() + 1000, -1)) {
		shutdown(sv[0], SHUT_WR);
		agent_server_serve(&srv, sv[1], &next);
	}
	close(sv[0]);
	close(sv[1]);
	return 0;
}
