/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_AGENT_SOCKET_H
#define MSPROF_AGENT_SOCKET_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Where a task's agent listens, as msprof reaches it. */
struct agent_socket {
	char path[PATH_MAX];	/* through the task's root */
	bool found;		/* an entry of its name there */
	bool is_socket;		/* and its user's socket, not a link or anything else */
	int err;		/* why it could not be looked for; 0 if it was */
};

/*
 * Our agent binds in the task's HOME, a real CANN server in its user's
 * home from the user database (the one the task sees: a container's own
 * when own_mnt_ns): s names the first of the two holding an entry of the
 * socket's name (connecting says why one that is no socket is refused);
 * with neither, the HOME one, named in messages.  Looked at through the
 * task's root, in the reader; nothing is opened at the name.  -ETIMEDOUT
 * if the reader did not answer.
 */
int agent_socket_find(struct agent_socket *s, int pid, int ns_pid,
		      bool own_mnt_ns);
/*
 * uid's home in the user database open at fd (a container's /etc/passwd,
 * which it closes): regular files under 16 MiB, read a line at a time up
 * to the size they had at open, lines longer than PATH_MAX skipped whole.
 * -ENOENT if uid has no entry.
 */
int agent_socket_passwd_home_fd(int fd, uid_t uid, char *home, size_t len);
/*
 * Connects to s in the reader, only if it is uid's socket (-ENOTSOCK
 * otherwise), and hands back the connection in *fd.
 */
int agent_socket_connect(const struct agent_socket *s, int pid, uid_t uid,
			 int *fd);

#endif
