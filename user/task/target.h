/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_TARGET_H
#define MSPROF_TARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/fsutil.h"
#include "ctl_lock.h"
#include "params.h"

/* More device directories in a window than this are not taken. */
#define TARGET_MAX_DEVICES 64
/*
 * Bytes copied from the stages in one window, all its targets together:
 * what the tasks can make root write does not grow with their number.  A
 * runtime's device data for a window is tens to hundreds of MiB a rank; 4
 * GiB leaves room for a long window of a node's ranks.
 */
#define TARGET_STAGE_MAX_BYTES (4ull << 30)

/* Why staged entries were left out of a window (stage_left_why). */
enum {
	TARGET_LEFT_BUDGET = 1 << 0,	/* the window's TARGET_STAGE_MAX_BYTES */
	TARGET_LEFT_RESERVE = 1 << 1,	/* the output's free-space reserve */
	TARGET_LEFT_FILES = 1 << 2,	/* more files than a runtime writes */
	TARGET_LEFT_FILE_BYTES = 1 << 3,	/* a file larger than a runtime's */
	TARGET_LEFT_DEVICES = 1 << 4,	/* past TARGET_MAX_DEVICES */
};

/* One task under control: how to reach it and its current window. */
struct target {
	int host_pid;
	int ns_pid;		/* the pid the task sees itself as */
	char comm[16];
	int rank_id;		/* RANK_ID, else RANK, as its window began; -1 */
	bool own_mnt_ns;	/* a mount namespace other than msprof's */
	char sock_path[PATH_MAX];	/* as msprof reaches it */
	bool sock_found;	/* an entry of its name there */
	bool has_socket;	/* and a socket, not a link or anything else */
	int sock_err;		/* why it could not be looked for; 0 if it was */
	/*
	 * The staging directory for device data, owned by the task's user:
	 * msprof holds it open, the agent writes to it by path.
	 */
	char stage_name[64];
	char task_stage[PATH_MAX];	/* as the task's agent writes to it */
	int stage_parent_fd;	/* the directory holding it, -1 if none */
	int stage_fd;		/* the staging directory, -1 if none */
	uid_t uid;		/* the task's user, who owns what it stages */
	gid_t gid;
	/* Its /tmp may not hold a directory of root's making (stage_create). */
	bool stage_parent_refused;
	unsigned int stage_ignored;	/* entries not taken in this window */
	/*
	 * Entries a runtime writes left out of this window at a cap (a file,
	 * or a device directory past TARGET_MAX_DEVICES), and which caps
	 * (TARGET_LEFT_*): the window is incomplete then.
	 */
	unsigned int stage_left_out;
	unsigned int stage_left_why;
	/*
	 * The device_<N>/ directories taken in this window, and whether each
	 * brought its runtime's own info.json.<N>: only those without one
	 * need metadata of msprof's making (window_begin() resets it).
	 */
	struct target_device {
		unsigned int id;
		bool has_info;
	} devices[TARGET_MAX_DEVICES];
	unsigned int ndevices;
	int device_err;		/* first failure taking its device data */
	int fd;			/* connection to the agent, -1 if none */
	unsigned int requests;	/* sent on this connection (the agent allows 100) */
	struct ctl_lock lock;	/* one controller per task */
	bool exited;
	uint64_t lost_at_exit;	/* its host records lost in the window, if exited */
	bool followed;		/* started by a target; kept only if it did something */
	char dir[PATH_MAX];	/* the window's PROF_ directory, "" if none */
	int dir_fd;		/* open on it, -1 if none */
	int device_status;	/* the agent's answer to STOP_REQ, or -errno */
	bool server_ended;	/* its server ended the session inside the window */
};

/*
 * Looks the task up in /proc and finds its socket (sock_found,
 * has_socket; sock_err why it could not be looked for: -ETIMEDOUT when
 * its home did not answer); -ESRCH if it does not exist, -ETIMEDOUT if
 * its /proc entries did not answer (procread.h).  Opens nothing it keeps,
 * writes nothing.
 */
int target_init(struct target *t, int host_pid);
/*
 * uid's home in the user database open at fd (a container's /etc/passwd,
 * which it closes): regular files under 16 MiB, read a line at a time up
 * to the size they had at open, lines longer than PATH_MAX skipped whole.
 * -ENOENT if uid has no entry.
 */
int target_passwd_home_fd(int fd, uid_t uid, char *home, size_t len);
/*
 * Connects to the task's agent and hands it a new staging directory for
 * device data, owned by the task's user, as the result_dir of parameters
 * sw: in output (the path, and out open on it) when the task shares
 * msprof's mount namespace, else in the task's own /tmp.  -EILSEQ if the
 * staging path cannot be sent unescaped.
 */
int target_connect(struct target *t, const char *output, int out,
		   const struct params_switches *sw);
/*
 * Copies what the runtime (or our agent) wrote in the window's PROF_
 * directory inside the stage, the files a runtime writes and nothing else,
 * into the window's PROF_ directory, lists the device directories taken in
 * devices[], then empties the stage.  What it copies counts in b, the
 * window's budget shared by all its targets.  Entries it does not take are
 * counted in stage_ignored; entries left out at a cap (b, the output's
 * free-space reserve, the files and device directories a runtime writes)
 * in stage_left_out and stage_left_why; the first failure is kept in
 * device_err too.
 */
int target_collect_device_data(struct target *t, struct fsutil_budget *b);
/*
 * The caps of stage_left_why as a list ("past the window's 4 GiB copy
 * budget, past 65536 files"), into buf; b is the window's budget.
 */
const char *target_left_out_text(const struct target *t,
				 const struct fsutil_budget *b, char *buf,
				 size_t len);
/*
 * Closes the connection and removes the staging directory with its files;
 * what could not be removed (someone else's entry there) is left, and the
 * first failure returned.
 */
int target_disconnect(struct target *t);

#endif
