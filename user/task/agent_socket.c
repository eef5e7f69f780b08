// SPDX-License-Identifier: MIT
/*
 * Finding a task's agent socket (in its HOME, else its user's home in the
 * user database it sees) and connecting to it, through the task's root.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent_socket.h"
#include "common/printable.h"
#include "dynsock.h"
#include "msprof/protocol.h"
#include "proc/procfs.h"
#include "proc/procread.h"

static int copy_home(const struct passwd *pw, char *home, size_t len)
{
	if (!pw)
		return -ENOENT;
	return snprintf(home, len, "%s", pw->pw_dir) >= (int)len ? -ENAMETOOLONG : 0;
}

/* Far more than any real user database. */
#define PASSWD_MAX (16 << 20)
/* A line holding a home longer than PATH_MAX holds none we could use. */
#define PASSWD_LINE (PATH_MAX + 256)

/*
 * uid's home in one "name:password:uid:gid:gecos:home:shell" line, as
 * fgetpwent() reads it (blank and '#' lines are none), or -ENOENT.
 */
static int passwd_line_home(char *line, uid_t uid, char *home, size_t len)
{
	char *field[6], *end;
	unsigned long id;
	int i;

	line += strspn(line, " \t");
	if (*line == '#')
		return -ENOENT;
	line[strcspn(line, "\n")] = '\0';
	for (i = 0; i < 6; i++) {
		field[i] = line;
		line = strchr(line, ':');
		if (!line)
			return -ENOENT;
		*line++ = '\0';
	}
	errno = 0;
	id = strtoul(field[2], &end, 10);
	if (*field[2] < '0' || *field[2] > '9' || *end || errno || id != uid)
		return -ENOENT;
	if (snprintf(home, len, "%s", field[5]) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int agent_socket_passwd_home_fd(int fd, uid_t uid, char *home, size_t len)
{
	char line[PASSWD_LINE];
	bool skip = false, ended;
	struct stat st;
	int err;
	FILE *fp;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > PASSWD_MAX) {
		close(fd);
		return -EINVAL;
	}
	fp = fdopen(fd, "re");
	if (!fp) {
		err = -errno;
		close(fd);
		return err;
	}
	/* Up to its size at open: it may grow after the fstat. */
	err = -ENOENT;
	while (err == -ENOENT && ftello(fp) < st.st_size &&
	       fgets(line, sizeof(line), fp)) {
		/* A longer line is skipped whole: its tail is no line. */
		ended = strchr(line, '\n') || feof(fp);
		if (!skip && ended)
			err = passwd_line_home(line, uid, home, len);
		skip = !ended;
	}
	fclose(fp);
	return err;
}

struct passwd_arg {
	int pid;
	uid_t uid;
};

/*
 * In the reader: uid's home in the user database of the task's own root,
 * which may lie on a file system whose daemon never answers.
 */
static int passwd_in_reader(const void *arg, int in_fd, char *home,
			    size_t len, size_t *out_len, int *out_fd)
{
	const struct passwd_arg *a = arg;
	int fd, err;

	(void)in_fd;
	(void)out_fd;
	/* The task's file: a FIFO must not hang us, nor a huge file hold us. */
	err = procfs_open_in_root(a->pid, "/etc/passwd", O_RDONLY | O_NONBLOCK, &fd);
	if (!err)
		err = agent_socket_passwd_home_fd(fd, a->uid, home, len);
	*out_len = err ? 0 : strlen(home) + 1;
	return err;
}

/* uid's home in the user database of the task's own root. */
static int passwd_home(int pid, uid_t uid, char *home, size_t len)
{
	struct passwd_arg a = { .pid = pid, .uid = uid };
	struct procread_call c = {
		.fn = passwd_in_reader, .arg = &a, .arg_len = sizeof(a),
		.in_fd = -1, .out = home, .cap = len,
	};
	int err = procread_run(&c);

	/* What the reader says is bytes: a string only if it ends as one. */
	if (!err && (!c.len || home[c.len - 1]))
		err = -EPROTO;
	return err;
}

/* The task's user's home directory, in the user database it sees. */
static int user_home(int pid, bool own_mnt_ns, char *home, size_t len)
{
	uid_t uid;
	gid_t gid;
	int err;

	err = procfs_owner(pid, &uid, &gid);
	if (err)
		return err;
	/* A container has users of its own. */
	if (own_mnt_ns)
		return passwd_home(pid, uid, home, len);
	return copy_home(getpwuid(uid), home, len);
}

/* "/proc/<pid>/root<home>/dynamic_profiling_socket_<ns pid>" */
static int sock_path_in(struct agent_socket *s, int pid, int ns_pid,
			const char *home)
{
	size_t n;

	/* Through the task's root: the same path from the host or inside. */
	if (snprintf(s->path, sizeof(s->path), "/proc/%d/root%s", pid, home) >=
	    (int)sizeof(s->path))
		return -ENAMETOOLONG;
	/*
	 * The task writes its home, and msprof prints the path: a home with
	 * control characters is named with '?'s, and so never connected to;
	 * well-formed UTF-8 is kept whatever msprof's locale (the lines that
	 * print it make their own copy printable).
	 */
	printable_as(s->path, true);
	n = strlen(s->path);
	return msprof_socket_path(s->path + n, sizeof(s->path) - n, "", ns_pid);
}

/*
 * Whether home, as the task sees it, holds an entry of the socket's name
 * (found) and whether that is the task's user's socket itself
 * (is_socket), not a link, FIFO, file or another user's socket planted
 * there (in a home the task shares, /tmp say): only such a one is ever
 * connected to (connect_in_reader).  Looked at through the task's root (its links
 * resolve there, never in msprof's), in the reader (a FUSE mount there may
 * never answer); nothing is opened at the name, nor connected to.
 * -ETIMEDOUT if the reader did not answer; any other failure is no entry.
 */
static int sock_in(struct agent_socket *s, int pid, int ns_pid,
		   const char *home)
{
	struct stat st;
	char name[64];
	uid_t uid;
	gid_t gid;
	int err;

	s->found = false;
	s->is_socket = false;
	if (msprof_socket_path(name, sizeof(name), ".", ns_pid))
		return 0;
	err = procfs_stat_in_root(pid, home, name, O_PATH | O_DIRECTORY, &st, NULL);
	if (procread_stalled(err))
		return err;
	s->found = !err;
	s->is_socket = s->found && S_ISSOCK(st.st_mode) &&
		       !procfs_owner(pid, &uid, &gid) && st.st_uid == uid;
	return 0;
}

int agent_socket_find(struct agent_socket *s, int pid, int ns_pid,
		      bool own_mnt_ns)
{
	char home[PATH_MAX], first[PATH_MAX] = "";
	int err;

	err = procfs_getenv(pid, "HOME", home, sizeof(home));
	if (!err) {
		err = sock_path_in(s, pid, ns_pid, home) ?:
		      sock_in(s, pid, ns_pid, home);
		if (err || s->found)
			return err;
		strcpy(first, s->path);
	} else if (err != -ENOENT) {
		return err;
	}
	err = user_home(pid, own_mnt_ns, home, sizeof(home));
	if (!err)
		err = sock_path_in(s, pid, ns_pid, home) ?:
		      sock_in(s, pid, ns_pid, home);
	if (procread_stalled(err))
		return err;
	if ((err || !s->found) && *first)
		strcpy(s->path, first);
	return *first ? 0 : err;
}

struct connect_arg {
	int pid;
	uid_t uid;
	char path[PATH_MAX];	/* the socket, as the task sees it */
};

/*
 * In the reader, which holds no more than the capabilities connecting to
 * the task's socket needs: the socket itself, found inside the task's
 * root (a link there, to a socket of root's say, or a socket of another
 * user's is never connected to), connected through its descriptor, and
 * handed back.  The walk there and the connect's permission check may ask
 * a FUSE daemon that never answers.  -ENOTSOCK if it is not its user's
 * socket.
 */
static int connect_in_reader(const void *arg, int in_fd, char *out,
			     size_t cap, size_t *len, int *fd)
{
	const struct connect_arg *a = arg;
	char path[64];
	struct stat st;
	int sfd, err;

	(void)in_fd;
	(void)out;
	(void)cap;
	(void)len;
	err = procfs_open_in_root(a->pid, a->path, O_PATH | O_NOFOLLOW, &sfd);
	if (err)
		return err;
	if (fstat(sfd, &st) || !S_ISSOCK(st.st_mode) || st.st_uid != a->uid) {
		close(sfd);
		return -ENOTSOCK;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", sfd);
	err = dynsock_connect(path, fd);
	close(sfd);
	return err;
}

/* A full accept queue is tried for DYNSOCK_CONNECT_S: the reader's bound. */
#define CONNECT_TIMEOUT_MS ((DYNSOCK_CONNECT_S + 1) * 1000)

int agent_socket_connect(const struct agent_socket *s, int pid, uid_t uid,
			 int *fd)
{
	int n = snprintf(NULL, 0, "/proc/%d/root", pid);
	struct connect_arg a = { .pid = pid, .uid = uid };
	struct procread_call c = {
		.fn = connect_in_reader, .arg = &a, .arg_len = sizeof(a),
		.in_fd = -1, .timeout_ms = CONNECT_TIMEOUT_MS,
	};
	int err;

	snprintf(a.path, sizeof(a.path), "%s", s->path + n);
	err = procread_run(&c);
	if (!err && c.fd < 0)
		err = -EPROTO;
	if (!err)
		*fd = c.fd;
	return err;
}
