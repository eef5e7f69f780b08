/* SPDX-License-Identifier: MIT */
/*
 * The dynamic profiling socket protocol spoken between the msprof controller
 * and the agent inside the task (recent CANN layout, host byte order).
 */
#ifndef MSPROF_PROTOCOL_H
#define MSPROF_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#define MSPROF_SOCKET_PREFIX	"dynamic_profiling_socket_"
#define MSPROF_PARAMS_LEN	4096
/*
 * A server ends the session after the request past this many (QUIT not
 * counted), or after this many idle seconds outside a window; the seed's
 * rule, which the controller's interactive mode follows too (--idle-timeout).
 */
#define MSPROF_MAX_MSGS		100
#define MSPROF_IDLE_TIMEOUT_S	1800

/* First message after connect, client to server: collection parameters. */
struct msprof_params_msg {
	uint32_t len;			/* bytes used in data, without NUL */
	char data[MSPROF_PARAMS_LEN];	/* JSON text */
};

/* Every later message, both directions. */
struct msprof_msg {
	int32_t type;
	int32_t status;
};

enum msprof_msg_type {
	MSPROF_PARAMS_RSP = 0,
	MSPROF_START_REQ = 1,
	MSPROF_START_RSP = 2,
	MSPROF_STOP_REQ = 3,
	MSPROF_STOP_RSP = 4,
	MSPROF_QUIT_REQ = 5,
	MSPROF_QUIT_RSP = 6,
	MSPROF_DISCONNECT_RSP = 7,
};

enum msprof_msg_status {
	MSPROF_SUCCESS = 0,
	MSPROF_FAIL = 1,
	MSPROF_ALREADY_START = 2,
	MSPROF_NOT_SET_DEVICE = 3,
	MSPROF_NOT_START = 4,
};

_Static_assert(sizeof(struct msprof_params_msg) == 4100, "params message size");
_Static_assert(sizeof(struct msprof_msg) == 8, "message size");

/* "<home>/dynamic_profiling_socket_<pid>"; -ENAMETOOLONG if it does not fit. */
int msprof_socket_path(char *buf, size_t len, const char *home, int pid);
/* Fills a params message from JSON text; -E2BIG if the text does not fit. */
int msprof_params_pack(struct msprof_params_msg *msg, const char *json);
/*
 * Copies the string value of "key" from flat JSON text into out.
 * -ENOENT if absent, -ENAMETOOLONG if it does not fit.
 */
int msprof_json_get_str(const char *json, const char *key, char *out, size_t len);
const char *msprof_msg_type_name(int32_t type);
const char *msprof_msg_status_name(int32_t status);
/* Milliseconds on CLOCK_MONOTONIC: every socket deadline is one of these. */
uint64_t msprof_now_ms(void);
/*
 * *fd: a descriptor that turns readable when a signal the calling thread
 * blocks is pending (msprof reads them from a signalfd in its event loop),
 * the wake_fd that ends msprof's waits below with the signal left pending.
 */
int msprof_signal_fd(int *fd);
/*
 * Waits in poll() until fd has one of events (or an error or hangup) or the
 * deadline (msprof_now_ms() time) passes: 0 or -ETIMEDOUT.  A readable
 * wake_fd (-1: none) ends the wait with -EINTR; fd -1 just sleeps.
 */
int msprof_wait_by(int fd, short events, uint64_t deadline, int wake_fd);
/*
 * Reads or writes all of len bytes on a stream socket by the deadline,
 * never blocking in the call itself: 0, -ETIMEDOUT, -EINTR (wake_fd as
 * above), -ECONNRESET once the peer is gone, or -errno.
 */
int msprof_read_by(int fd, void *buf, size_t len, uint64_t deadline,
		   int wake_fd);
int msprof_write_by(int fd, const void *buf, size_t len, uint64_t deadline,
		    int wake_fd);

#endif
