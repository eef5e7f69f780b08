/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PROCREAD_H
#define MSPROF_PROCREAD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * msprof's reader: a child process that makes, for msprof, the reads that
 * can wait on another process for good.  Root's opens and reads of a
 * task's /proc/<pid>/{stat,environ,maps,ns/<kind>,root} wait on the task's exec
 * lock, which the task holds while its exec flushes a file on a FUSE mount
 * whose daemon never answers; a lookup in a FUSE mount (allow_other) under
 * the task's home or root waits on that daemon, past SIGKILL once the
 * daemon has read the request.  The reader makes them, and msprof waits
 * for its answer until a deadline; past it the reader is killed and left
 * to die when its wait ends (msprof never waits for it), and the next
 * call starts a new one.  The reader holds no descriptor of msprof's but
 * its end of a socket pair (no lock, BPF object, output or pipe stays
 * open for as long as it is stuck), and of its capabilities only what
  * reading others' /proc entries and homes takes (CAP_SYS_PTRACE,
 * CAP_DAC_READ_SEARCH, CAP_DAC_OVERRIDE to connect to a task's socket).
 * Call it from one thread at a time.
 */

/* The deadline of a call unless it names another. */
#define PROCREAD_TIMEOUT_MS 1000
#define PROCREAD_ARG_MAX (PATH_MAX + 512)
/* An answer is at most this long (a task's maps: bounded by the caller). */
#define PROCREAD_OUT_MAX (16u << 20)

/*
 * What a call runs in the reader: arg (a copy of the caller's), in_fd the
 * descriptor the caller handed over (-1: none; closed after).  It writes
 * at most cap bytes to out and their count to *len, and may set *fd to a
 * descriptor to hand back (its own copy is closed).  Its return, 0 or
 * -errno, is the call's.
 */
typedef int (*procread_fn)(const void *arg, int in_fd, char *out, size_t cap,
			   size_t *len, int *fd);

struct procread_call {
	procread_fn fn;
	const void *arg;
	size_t arg_len;		/* PROCREAD_ARG_MAX at most */
	int in_fd;		/* handed to fn, or -1 */
	void *out;
	size_t cap;		/* room at out, PROCREAD_OUT_MAX at most */
	unsigned int timeout_ms;	/* 0: PROCREAD_TIMEOUT_MS */
	size_t len;		/* set: bytes fn wrote to out */
	int fd;			/* set: the descriptor fn handed back, or -1 */
};

/*
 * Runs c->fn in the reader, started first if there is none, and waits for
 * its answer: fn's return, or -ETIMEDOUT past the deadline, -EINTR on a
 * signal msprof blocks (one its event loop reads: left pending), -EPROTO
 * on an answer that makes no sense, -EAGAIN while too many readers killed
 * earlier are still stuck; on any of those the reader is killed.
 */
int procread_run(struct procread_call *c);
/*
 * Whether err is a read that did not answer (-ETIMEDOUT) or a wait a
 * signal ended (-EINTR): the next read of that process would end so too,
 * and the caller stops there.
 */
bool procread_stalled(int err);
/*
 * What -ETIMEDOUT from the reads of a process means, to follow "pid N: "
 * or "cannot ...: "; strerror() of any other error.
 */
const char *procread_strerror(int err);

#endif
