// SPDX-License-Identifier: MIT
/*
 * The controller's reading of the agent's replies: msprof sends its
 * parameters and a few requests over a socketpair whose other end answers
 * with the fuzz bytes, then hangs up; what is left after the last reply is
 * read as a server's word between requests.
 *
 * Input: byte 0 holds the number of requests (low 3 bits), one byte per
 * request picks its type, and the rest is what the agent sends back.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#include "task/dynsock.h"
#include "msprof/protocol.h"

/* Past the agent's socket buffer the peer would have to read. */
#define MAX_INPUT 65536

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Real requests, and two no msprof sends, for the reply check. */
	static const int types[] = {
		MSPROF_START_REQ, MSPROF_STOP_REQ, MSPROF_QUIT_REQ,
		MSPROF_PARAMS_RSP, MSPROF_DISCONNECT_RSP,
	};
	size_t i, nreq;
	int sv[2], status;

	if (!size || size > MAX_INPUT)
		return 0;
	nreq = data[0] & 7;
	if (size < 1 + nreq)
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 0;
	if (msprof_write_by(sv[1], data + 1 + nreq, size - 1 - nreq,
			    msprof_now_ms() + 1000, -1))
		goto out;
	shutdown(sv[1], SHUT_WR);
	/* As a session does: nothing more after a failure. */
	if (dynsock_send_params(sv[0], "{\"result_dir\": \"/nonexistent\"}"))
		goto out;
	for (i = 0; i < nreq; i++) {
		if (dynsock_request(sv[0],
				    types[data[1 + i] % (sizeof(types) /
							 sizeof(types[0]))],
				    &status))
			goto out;
	}
	/* What the agent sent unasked after its last reply. */
	dynsock_check_ended(sv[0], &status);
out:
	close(sv[0]);
	close(sv[1]);
	return 0;
}
