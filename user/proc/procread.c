// SPDX-License-Identifier: MIT
/* msprof's reader: reads that can wait for good, made by a child (procread.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "msprof/protocol.h"
#include "procread.h"

/*
 * Readers killed at a deadline that have not died yet: each waits in the
 * kernel for what held it (a FUSE daemon's answer).  Past this many no
 * more are started, so a user cannot make msprof fill the process table.
 */
#define STUCK_MAX 32

/* The reader now, and the killed ones not yet reaped. */
static struct {
	pid_t pid;		/* 0: none */
	int sock;		/* msprof's end, -1 if none */
	pid_t stuck[STUCK_MAX];
	unsigned int nstuck;
} reader = { .sock = -1 };

struct request {
	procread_fn fn;		/* the reader is a fork of msprof: the same code */
	uint32_t arg_len;
	uint32_t cap;
};

struct answer {
	int32_t err;
	uint32_t len;
};

/* One descriptor rides along with the first byte of a message. */
union fd_cmsg {
	struct cmsghdr h;
	char buf[CMSG_SPACE(sizeof(int))];
};

static int send_with_fd(int sock, const void *a, size_t alen, const void *b,
			size_t blen, int fd, int flags)
{
	struct iovec iov[2] = { { (void *)a, alen }, { (void *)b, blen } };
	union fd_cmsg c;
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = blen ? 2 : 1 };
	ssize_t n;

	if (fd >= 0) {
		memset(&c, 0, sizeof(c));
		m.msg_control = c.buf;
		m.msg_controllen = sizeof(c.buf);
		c.h.cmsg_level = SOL_SOCKET;
		c.h.cmsg_type = SCM_RIGHTS;
		c.h.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&c.h), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &m, flags | MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == alen + blen ? 0 : -EPROTO;
}

/* Up to len bytes, and the descriptor that came with them (-1: none). */
static ssize_t recv_with_fd(int sock, void *buf, size_t len, int *fd, int flags)
{
	struct iovec iov = { buf, len };
	union fd_cmsg c;
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = c.buf, .msg_controllen = sizeof(c.buf),
	};
	struct cmsghdr *h;
	ssize_t n = recvmsg(sock, &m, flags | MSG_CMSG_CLOEXEC);

	*fd = -1;
	if (n < 0)
		return -errno;
	for (h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))
		if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
		    h->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(fd, CMSG_DATA(h), sizeof(int));
	return n;
}

/* In the reader: all of len bytes, blocking; false at the end or an error. */
static bool read_all(int sock, void *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = recv(sock, buf, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf = (char *)buf + n;
		len -= (size_t)n;
	}
	return true;
}

/*
 * Keeps of the reader's capabilities only those reading others' /proc
 * entries and homes needs, and no way to gain more.
 */
static void drop_privileges(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	uint32_t keep = 1u << CAP_SYS_PTRACE | 1u << CAP_DAC_READ_SEARCH |
			1u << CAP_DAC_OVERRIDE;

	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (syscall(SYS_capget, &h, d))
		_exit(1);
	d[0].effective &= keep;
	d[0].permitted &= keep;
	d[0].inheritable = 0;
	d[1].effective = d[1].permitted = d[1].inheritable = 0;
	if (syscall(SYS_capset, &h, d))
		_exit(1);
}

/* Closes lo..hi; one at a time where close_range() is missing (qemu-user). */
static void close_from(unsigned int lo, unsigned int hi)
{
	struct rlimit rl;
	unsigned int fd;

	if (!syscall(SYS_close_range, lo, hi, 0))
		return;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur > (1u << 20))
		rl.rlim_cur = 1u << 20;
	for (fd = lo; fd <= hi && fd < rl.rlim_cur; fd++)
		close((int)fd);
}

/*
 * Only its socket: a reader stuck for good must not keep a lock, a BPF
 * object or the output open, nor the write end of a pipe someone reads
 * msprof's output from.
 */
static void keep_only(int sock)
{
	int null;

	if (sock > 3)
		close_from(3, (unsigned int)sock - 1);
	close_from((unsigned int)sock + 1, ~0u);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
	    dup2(null, 2) < 0)
		_exit(1);
	if (null > 2 && null != sock)
		close(null);
}

/* Serves requests until msprof closes its end (or dies). */
static void reader_main(int sock)
{
	/* Aligned as the caller's argument struct was. */
	static _Alignas(max_align_t) char arg[PROCREAD_ARG_MAX];
	struct answer a;
	struct request rq;
	int in_fd, out_fd;
	size_t len;
	char *out;

	keep_only(sock);
	drop_privileges();
	for (;;) {
		if (recv_with_fd(sock, &rq, sizeof(rq), &in_fd, MSG_WAITALL) !=
		    (ssize_t)sizeof(rq) || rq.arg_len > sizeof(arg) ||
		    rq.cap > PROCREAD_OUT_MAX || !read_all(sock, arg, rq.arg_len))
			_exit(0);
		out = malloc(rq.cap ? rq.cap : 1);
		len = 0;
		out_fd = -1;
		a.err = out ? rq.fn(arg, in_fd, out, rq.cap, &len, &out_fd) : -ENOMEM;
		a.len = (uint32_t)(a.err || len > rq.cap ? 0 : len);
		if (in_fd >= 0)
			close(in_fd);
		if (send_with_fd(sock, &a, sizeof(a), out, a.len, out_fd, 0))
			_exit(1);
		if (out_fd >= 0)
			close(out_fd);
		free(out);
	}
}

/* Reaps the killed readers that have died since. */
static void reap_stuck(void)
{
	unsigned int i = 0;
	pid_t r;

	while (i < reader.nstuck) {
		r = waitpid(reader.stuck[i], NULL, WNOHANG);
		if (r == 0) {
			i++;
			continue;
		}
		reader.stuck[i] = reader.stuck[--reader.nstuck];
	}
}

static int reader_start(void)
{
	int sv[2];
	pid_t pid;

	reap_stuck();
	if (reader.nstuck == STUCK_MAX)
		return -EAGAIN;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (!pid) {
		close(sv[0]);
		reader_main(sv[1]);
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return -errno;
	}
	reader.pid = pid;
	reader.sock = sv[0];
	return 0;
}

/*
 * Past a deadline (or a signal, or nonsense) the reader is killed: its
 * waits on the exec lock end at SIGKILL, a FUSE request the daemon holds
 * only when the daemon answers or goes.  It is never waited for.
 */
static void reader_kill(void)
{
	if (reader.pid <= 0)
		return;		/* none: kill(0) would be our process group */
	kill(reader.pid, SIGKILL);
	close(reader.sock);
	reader.sock = -1;
	if (waitpid(reader.pid, NULL, WNOHANG) != reader.pid)
		reader.stuck[reader.nstuck++] = reader.pid;
	reader.pid = 0;
}

/*
 * The answer's header (with its descriptor), then its bytes, by the
 * deadline: 0 and *ret fn's return, or what kept it from coming whole.
 */
static int read_answer(struct procread_call *c, uint64_t deadline, int sig,
		       int *ret)
{
	struct answer a;
	ssize_t n;
	int err;

	do {
		err = msprof_wait_by(reader.sock, POLLIN, deadline, sig);
		if (err)
			return err;
		n = recv_with_fd(reader.sock, &a, sizeof(a), &c->fd, MSG_DONTWAIT);
	} while (n == -EAGAIN || n == -EINTR);
	if (n <= 0)
		return n ? (int)n : -EPROTO;
	err = msprof_read_by(reader.sock, (char *)&a + n, sizeof(a) - (size_t)n,
			     deadline, sig);
	if (!err && (a.len > c->cap || (a.err && a.len) || a.err > 0))
		err = -EPROTO;
	if (!err)
		err = msprof_read_by(reader.sock, c->out, a.len, deadline, sig);
	if (err)
		return err == -ECONNRESET ? -EPROTO : err;
	c->len = a.len;
	*ret = a.err;
	return 0;
}

int procread_run(struct procread_call *c)
{
	uint64_t deadline = msprof_now_ms() +
			    (c->timeout_ms ? c->timeout_ms : PROCREAD_TIMEOUT_MS);
	struct request rq = { .fn = c->fn, .arg_len = (uint32_t)c->arg_len,
			      .cap = (uint32_t)c->cap };
	int sig, err, ret = 0;

	c->len = 0;
	c->fd = -1;
	if (c->arg_len > PROCREAD_ARG_MAX || c->cap > PROCREAD_OUT_MAX)
		return -EINVAL;
	err = reader.sock < 0 ? reader_start() : 0;
	if (!err)
		err = msprof_signal_fd(&sig);
	if (err)
		return err;
	/* Far less than the socket holds, into a reader that waits for it. */
	err = send_with_fd(reader.sock, &rq, sizeof(rq), c->arg, c->arg_len,
			   c->in_fd, MSG_DONTWAIT);
	if (err) {
		/* One that died idle (killed by someone): once more, anew. */
		reader_kill();
		err = reader_start() ?:
		      send_with_fd(reader.sock, &rq, sizeof(rq), c->arg,
				   c->arg_len, c->in_fd, MSG_DONTWAIT);
	}
	if (!err)
		err = read_answer(c, deadline, sig, &ret);
	close(sig);
	/* Whatever is left of this answer must not pass for the next one. */
	if (err)
		reader_kill();
	if ((err || ret) && c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	return err ?: ret;
}

bool procread_stalled(int err)
{
	return err == -ETIMEDOUT || err == -EINTR;
}

const char *procread_strerror(int err)
{
	if (err == -ETIMEDOUT)
		return "its /proc entries or files did not answer in time (it may be stuck in an exec, or a file system it uses does not answer)";
	return strerror(-err);
}
