// SPDX-License-Identifier: MIT
/* Finding a task's agent, connecting to it, and taking its device data. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dynsock.h"
#include "common/fsutil.h"
#include "common/printable.h"
#include "common/proflayout.h"
#include "msprof/protocol.h"
#include "params.h"
#include "proc/procfs.h"
#include "proc/procread.h"
#include "common/safe_open.h"
#include "target.h"
#include "common/testpoint.h"

#define STAGE_PREFIX ".msprof_stage_"
/* The task's user owns the staging directory: never follow its links. */
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

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

int target_passwd_home_fd(int fd, uid_t uid, char *home, size_t len)
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
		err = target_passwd_home_fd(fd, a->uid, home, len);
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
static int user_home(const struct target *t, char *home, size_t len)
{
	uid_t uid;
	gid_t gid;
	int err;

	err = procfs_owner(t->host_pid, &uid, &gid);
	if (err)
		return err;
	/* A container has users of its own. */
	if (t->own_mnt_ns)
		return passwd_home(t->host_pid, uid, home, len);
	return copy_home(getpwuid(uid), home, len);
}

/* "/proc/<pid>/root<home>/dynamic_profiling_socket_<ns pid>" */
static int sock_path_in(struct target *t, const char *home)
{
	size_t n;

	/* Through the task's root: the same path from the host or inside. */
	if (snprintf(t->sock_path, sizeof(t->sock_path), "/proc/%d/root%s",
		     t->host_pid, home) >= (int)sizeof(t->sock_path))
		return -ENAMETOOLONG;
	/*
	 * The task writes its home, and msprof prints the path: a home with
	 * control characters is named with '?'s, and so never connected to;
	 * well-formed UTF-8 is kept whatever msprof's locale (the lines that
	 * print it make their own copy printable).
	 */
	printable_as(t->sock_path, true);
	n = strlen(t->sock_path);
	return msprof_socket_path(t->sock_path + n, sizeof(t->sock_path) - n,
				  "", t->ns_pid);
}

/*
 * Whether home, as the task sees it, holds an entry of the socket's name
 * (sock_found) and whether that is the task's user's socket itself
 * (has_socket), not a link, FIFO, file or another user's socket planted
 * there (in a home the task shares, /tmp say): only such a one is ever
 * connected to (connect_in_reader).  Looked at through the task's root (its links
 * resolve there, never in msprof's), in the reader (a FUSE mount there may
 * never answer); nothing is opened at the name, nor connected to.
 * -ETIMEDOUT if the reader did not answer; any other failure is no entry.
 */
static int sock_in(struct target *t, const char *home)
{
	struct stat st;
	char name[64];
	uid_t uid;
	gid_t gid;
	int err;

	t->sock_found = false;
	t->has_socket = false;
	if (msprof_socket_path(name, sizeof(name), ".", t->ns_pid))
		return 0;
	err = procfs_stat_in_root(t->host_pid, home, name, O_PATH | O_DIRECTORY,
				  &st, NULL);
	if (procread_stalled(err))
		return err;
	t->sock_found = !err;
	t->has_socket = t->sock_found && S_ISSOCK(st.st_mode) &&
			!procfs_owner(t->host_pid, &uid, &gid) && st.st_uid == uid;
	return 0;
}

/*
 * Our agent binds in the task's HOME, a real CANN server in its user's
 * home from the user database: the first of the two holding an entry of
 * the socket's name (connecting says why one that is no socket is
 * refused).  With neither, the HOME one is the one named in messages.
 */
static int find_socket(struct target *t)
{
	char home[PATH_MAX], first[PATH_MAX] = "";
	int err;

	err = procfs_getenv(t->host_pid, "HOME", home, sizeof(home));
	if (!err) {
		err = sock_path_in(t, home) ?: sock_in(t, home);
		if (err || t->sock_found)
			return err;
		strcpy(first, t->sock_path);
	} else if (err != -ENOENT) {
		return err;
	}
	err = user_home(t, home, sizeof(home));
	if (!err)
		err = sock_path_in(t, home) ?: sock_in(t, home);
	if (procread_stalled(err))
		return err;
	if ((err || !t->sock_found) && *first)
		strcpy(t->sock_path, first);
	return *first ? 0 : err;
}

int target_init(struct target *t, int host_pid)
{
	bool same_mnt_ns = true;
	int err;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->stage_parent_fd = -1;
	t->stage_fd = -1;
	t->dir_fd = -1;
	t->host_pid = host_pid;
	if (!procfs_alive(host_pid))
		return -ESRCH;
	err = procfs_ns_pid(host_pid, &t->ns_pid);
	if (!err)
		err = procfs_comm(host_pid, t->comm, sizeof(t->comm));
	if (!err)
		err = procfs_same_ns(host_pid, "mnt", &same_mnt_ns);
	t->own_mnt_ns = !same_mnt_ns;
	if (!err)
		t->sock_err = find_socket(t);
	return err;
}

/* Any entry at all: the directory is not the one just made. */
static int refuse_entry(int dir, const char *name, void *ctx)
{
	(void)dir;
	(void)name;
	(void)ctx;
	return -EEXIST;
}

/*
 * The task's /tmp is whatever its namespace mounts there, a root-only
 * directory of the host's bind-mounted by a user namespace included: only
 * a sticky world-writable one or one of the task's user's own may take a
 * directory of root's making (a checked --output is root's already).
 */
static int stage_parent_ok(const struct target *t, const struct stat *st)
{
	if (!t->own_mnt_ns)
		return 0;
	if (!S_ISDIR(st->st_mode))
		return -ENOTDIR;
	if (st->st_uid == t->uid ||
	    (st->st_mode & (S_ISVTX | S_IWOTH)) == (S_ISVTX | S_IWOTH))
		return 0;
	return -EPERM;
}

/*
 * A new staging directory for every session, named so that no one can make
 * it beforehand (one found there is an error, never reused), and so that
 * one a killed controller left is never taken for ours.  It goes under
 * output when the task sees output as msprof does; a task with a mount
 * namespace of its own cannot: then into its own /tmp, through its root.
 */
static int stage_create(struct target *t, const char *output, int out)
{
	const char *parent = t->own_mnt_ns ? "/tmp" : output;
	unsigned long long rnd;
	struct stat st;
	int err;

	/* Said of this connection only: a refusal before must not linger. */
	t->stage_parent_refused = false;
	err = procfs_owner(t->host_pid, &t->uid, &t->gid);
	if (err)
		return err;
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -errno;
	snprintf(t->stage_name, sizeof(t->stage_name), STAGE_PREFIX "%d_%d_%016llx",
		 t->host_pid, (int)getpid(), rnd);
	if (snprintf(t->task_stage, sizeof(t->task_stage), "%s/%s", parent,
		     t->stage_name) >= (int)sizeof(t->task_stage))
		return -ENAMETOOLONG;
	if (t->own_mnt_ns) {
		/*
		 * Looked up in the reader, the walk through the task's root
		 * bounded; what is made in it later is not (docs/security.md).
		 */
		err = procfs_stat_in_root(t->host_pid, parent, NULL,
					  O_PATH | O_DIRECTORY, &st,
					  &t->stage_parent_fd);
	} else {
		t->stage_parent_fd = fcntl(out, F_DUPFD_CLOEXEC, 0);
		if (t->stage_parent_fd < 0)
			err = -errno;
	}
	if (!err) {
		err = stage_parent_ok(t, &st);
		t->stage_parent_refused = err == -EPERM;
	}
	if (err)
		return err;
	if (mkdirat(t->stage_parent_fd, t->stage_name, 0700))
		return -errno;
	testpoint("stage-made");
	/*
	 * A task with a mount namespace of its own can mount over the name
	 * before we open it: a directory of root's there would be handed to
	 * the task's user by the fchown below.
	 */
	t->stage_fd = safe_openat_beneath(t->stage_parent_fd, t->stage_name,
				     DIR_FLAGS, 0);
	if (t->stage_fd < 0) {
		err = t->stage_fd;
		unlinkat(t->stage_parent_fd, t->stage_name, AT_REMOVEDIR);
		return err;
	}
	/*
	 * Ours, just made?  In a sticky /tmp no one else can swap it; in one
	 * the task's user owns, that user can rename a directory of root's
	 * from beside it over ours: fchown would hand it over, and removal
	 * at the end would empty it.  Only an empty one is taken.
	 */
	if (fstat(t->stage_fd, &st))
		err = -errno;
	else if (st.st_uid != geteuid())
		err = -EPERM;
	else
		err = fsutil_dir_for_each(t->stage_fd, refuse_entry, NULL);
	if (err) {
		/* Not ours: target_disconnect() must not empty it. */
		close(t->stage_fd);
		t->stage_fd = -1;
		return err;
	}
	/* The agent writes as the task's user. */
	return fchown(t->stage_fd, t->uid, t->gid) ? -errno : 0;
}

/*
 * The parameters, as a CANN runtime reads them: result_dir is the stage,
 * named as the task sees it.
 */
static int send_params(struct target *t, const struct params_switches *sw)
{
	char json[MSPROF_PARAMS_LEN];
	int err;

	err = params_build(sw, t->task_stage, "all", json, sizeof(json));
	if (err == -EINVAL)
		return -EILSEQ;
	return err ?: dynsock_send_params(t->fd, json);
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

static int sock_connect(struct target *t)
{
	int n = snprintf(NULL, 0, "/proc/%d/root", t->host_pid);
	struct connect_arg a = { .pid = t->host_pid, .uid = t->uid };
	struct procread_call c = {
		.fn = connect_in_reader, .arg = &a, .arg_len = sizeof(a),
		.in_fd = -1, .timeout_ms = CONNECT_TIMEOUT_MS,
	};
	int err;

	snprintf(a.path, sizeof(a.path), "%s", t->sock_path + n);
	err = procread_run(&c);
	if (!err && c.fd < 0)
		err = -EPROTO;
	if (!err)
		t->fd = c.fd;
	return err;
}

int target_connect(struct target *t, const char *output, int out,
		   const struct params_switches *sw)
{
	int err;

	err = stage_create(t, output, out);
	testpoint("after-stage");
	if (!err)
		err = sock_connect(t);
	if (!err)
		err = send_params(t, sw);
	if (err)
		target_disconnect(t);
	return err;
}

/*
 * What is taken from the stage: the one PROF_ directory a runtime (or our
 * agent, devdata.c) made there in this window, and in it only the files a
 * runtime writes (docs/output.md); everything else is counted.
 */
enum staged { STAGED_STRAY, STAGED_FILE, STAGED_DIR };

/* Where in the stage an entry lies: what may be taken there. */
enum level {
	AT_STAGE,		/* the stage itself: the PROF_ directory */
	AT_RUN,			/* PROF_...: device_<N>/, host/, agent_stats */
	AT_DEVICE,		/* device_<N>/: control files, data/ */
	AT_DEVICE_DATA,		/* device_<N>/data/: channel slices */
	AT_HOST,		/* host/: data/ only (msprof makes the rest) */
	AT_HOST_DATA,		/* host/data/: API and dictionary slices */
};

/*
 * Far more than a target's files in a window, and than a runtime's file;
 * the tests lower them (testpoint_limit()).
 */
#define STAGE_MAX_FILES 65536
#define STAGE_MAX_FILE_BYTES (2ull << 30)
#define DEVICE_DIGITS 4

/* s[0..n) is not empty and all of set (s may go on past n). */
static bool all_of(const char *s, size_t n, const char *set)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!s[i] || !strchr(set, s[i]))
			return false;
	return n;
}

static bool digits(const char *s, size_t n)
{
	return all_of(s, n, "0123456789");
}

static bool has_prefix(const char *s, size_t n, const char *prefix)
{
	size_t p = strlen(prefix);

	return n >= p && !memcmp(s, prefix, p);
}

static bool has_suffix(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

/* Length without a trailing ".slice_<digits>", or 0 if there is none. */
static size_t before_slice(const char *s, size_t n)
{
	size_t d = n;

	while (d && s[d - 1] >= '0' && s[d - 1] <= '9')
		d--;
	if (d == n || d < 8 || memcmp(s + d - 7, ".slice_", 7))
		return 0;
	return d - 7;
}

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

/* "<channel>.data.<dev>.slice_<M>": a device's raw channel data. */
static bool device_slice(const char *s, size_t n, const char *dev)
{
	size_t b = before_slice(s, n), d = strlen(dev);

	if (b < 6 + d + 1 || memcmp(s + b - d, dev, d) ||
	    memcmp(s + b - d - 6, ".data.", 6))
		return false;
	return all_of(s, b - d - 6, NAME_CHARS);
}

/* "{unaging|aging}.<kind>.<tag>.slice_<M>": the host's raw API data. */
static bool host_slice(const char *s, size_t n)
{
	size_t b = before_slice(s, n), p;

	if (has_prefix(s, b, "unaging."))
		p = 8;
	else if (has_prefix(s, b, "aging."))
		p = 6;
	else
		return false;
	return all_of(s + p, b - p, NAME_CHARS ".");
}

/* "<base>.<dev>", or sample.json: a device's control files. */
static bool device_control(const char *s, size_t n, const char *dev)
{
	static const char *const bases[] = PROFDIR_DEVICE_META;
	size_t i, b;

	if (n == strlen(PROFDIR_SAMPLE) && !memcmp(s, PROFDIR_SAMPLE, n))
		return true;
	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		b = strlen(bases[i]);
		if (n == b + strlen(dev) && !memcmp(s, bases[i], b) &&
		    !memcmp(s + b, dev, n - b))
			return true;
	}
	return false;
}

struct take {
	struct target *t;
	int to;		/* the matching directory in the PROF_ directory */
	enum level level;
	const char *run;	/* the PROF_ directory taken, at AT_STAGE */
	const char *dev;	/* device_<dev>/ being taken, in AT_DEVICE* */
	struct target_device *device;	/* its entry in t->devices */
	unsigned int *files;	/* the target's files taken so far */
	struct fsutil_budget *budget;	/* the window's, all targets' */
};

static enum staged staged_kind(const struct take *tk, const char *name)
{
	size_t n = strlen(name), k = n, p = strlen(PROFDIR_DEVICE_PREFIX);
	size_t a = strlen(PROFDIR_AGENT_STATS_PREFIX);
	size_t z = strlen(PROFDIR_AGENT_STATS_SUFFIX);

	if (has_suffix(name, n, PROFDIR_DONE))
		k -= strlen(PROFDIR_DONE);
	switch (tk->level) {
	case AT_STAGE:
		return tk->run && !strcmp(name, tk->run) ? STAGED_DIR :
		       STAGED_STRAY;
	case AT_RUN:
		if (has_prefix(name, n, PROFDIR_DEVICE_PREFIX) &&
		    digits(name + p, n - p) && n - p <= DEVICE_DIGITS &&
		    (name[p] != '0' || n == p + 1))
			return STAGED_DIR;
		if (!strcmp(name, PROFDIR_HOST))
			return STAGED_DIR;
		if (has_prefix(name, n, PROFDIR_AGENT_STATS_PREFIX) &&
		    has_suffix(name, n, PROFDIR_AGENT_STATS_SUFFIX) &&
		    all_of(name + a, n - a - z, "abcdefghijklmnopqrstuvwxyz0123456789_"))
			return STAGED_FILE;
		return STAGED_STRAY;
	case AT_DEVICE:
		if (!strcmp(name, PROFDIR_DATA))
			return STAGED_DIR;
		return device_control(name, k, tk->dev) ? STAGED_FILE :
		       STAGED_STRAY;
	case AT_DEVICE_DATA:
		return !strcmp(name, PROFDIR_DEVICE_TIME) ||
		       device_slice(name, k, tk->dev) ? STAGED_FILE :
		       STAGED_STRAY;
	case AT_HOST:
		return strcmp(name, PROFDIR_DATA) ? STAGED_STRAY : STAGED_DIR;
	default:
		return host_slice(name, k) ? STAGED_FILE : STAGED_STRAY;
	}
}

/*
 * Opens an entry of the stage only if it is what the task's user made:
 * never a link, a mount point (a task with a user namespace of its own can
 * mount anything it can reach there), a FIFO (O_NONBLOCK: no hang), a hard
 * link to someone else's file, a sparse file, or another user's; never a
 * tty to become msprof's controlling terminal (O_NOCTTY).
 */
static int open_staged(const struct target *t, int dir, const char *name,
		       enum staged kind, int *fd, struct stat *st)
{
	int flags = kind == STAGED_DIR ? DIR_FLAGS :
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	bool ok;
	int err;

	*fd = safe_openat_beneath(dir, name, flags, 0);
	if (*fd < 0)
		return *fd;
	if (fstat(*fd, st)) {
		err = -errno;
		close(*fd);
		return err;
	}
	/*
	 * A file with holes is not the agent's, which writes in order: its
	 * size cost the user nothing.  (Holes punched after this check stay
	 * holes in the copy, fsutil_copy_data().)  An empty file
	 * has no data for SEEK_HOLE to find (ENXIO) and is fine.
	 */
	ok = st->st_uid == t->uid &&
	     (kind == STAGED_DIR ? S_ISDIR(st->st_mode) :
	      S_ISREG(st->st_mode) && st->st_nlink == 1 &&
	      (st->st_size == 0 || lseek(*fd, 0, SEEK_HOLE) >= st->st_size));
	if (!ok) {
		close(*fd);
		return -EPERM;
	}
	return 0;
}

static int take_at(int from, const char *name, void *ctx);

/* What a directory of level holds. */
static enum level level_below(enum level level, const char *name)
{
	switch (level) {
	case AT_STAGE:
		return AT_RUN;
	case AT_RUN:
		return strcmp(name, PROFDIR_HOST) ? AT_DEVICE : AT_HOST;
	case AT_DEVICE:
		return AT_DEVICE_DATA;
	default:
		return AT_HOST_DATA;
	}
}

/*
 * Lists device_<N>/ as taken (*fresh: a new last entry), or finds it
 * listed by an earlier copy in this window; NULL when the list is full.
 */
static struct target_device *device_add(struct target *t, const char *dev,
					bool *fresh)
{
	unsigned int i, id = (unsigned int)atoi(dev);
	struct target_device *d;

	*fresh = false;
	for (i = 0; i < t->ndevices; i++)
		if (t->devices[i].id == id)
			return &t->devices[i];
	if (t->ndevices == TARGET_MAX_DEVICES)
		return NULL;
	*fresh = true;
	d = &t->devices[t->ndevices++];
	*d = (struct target_device){ .id = id };
	return d;
}

/* An entry a runtime writes, left out at cap (TARGET_LEFT_*). */
static void left_out(struct target *t, unsigned int cap)
{
	t->stage_left_out++;
	t->stage_left_why |= cap;
}

/*
 * A directory of the stage into the matching one of root's in the PROF_
 * dir; the runtime's PROF_ directory itself into the PROF_ dir.
 */
static int take_dir(struct take *tk, int from, const char *name)
{
	struct take sub = *tk;
	bool run = tk->level == AT_STAGE, listed = false;
	struct stat st;
	int in, err;

	sub.level = level_below(tk->level, name);
	if (open_staged(tk->t, from, name, STAGED_DIR, &in, &st)) {
		tk->t->stage_ignored++;
		return 0;
	}
	/* Listed while taken (the last entry if new), dropped if nothing came. */
	if (sub.level == AT_DEVICE) {
		sub.dev = name + strlen(PROFDIR_DEVICE_PREFIX);
		sub.device = device_add(tk->t, sub.dev, &listed);
		if (!sub.device) {
			left_out(tk->t, TARGET_LEFT_DEVICES);
			close(in);
			return 0;
		}
	}
	if (!run && mkdirat(tk->to, name, 0750) && errno != EEXIST) {
		err = -errno;
		goto out;
	}
	/* tk->to is root's own: nothing there is anyone else's link. */
	sub.to = run ? tk->to : openat(tk->to, name, DIR_FLAGS);
	if (sub.to < 0) {
		err = -errno;
		goto out;
	}
	err = fsutil_dir_for_each(in, take_at, &sub);
	if (!run)
		close(sub.to);
	/* Taken ones are gone from the stage; an empty copy goes too. */
	unlinkat(from, name, AT_REMOVEDIR);
	if (!run && !unlinkat(tk->to, name, AT_REMOVEDIR) && listed)
		tk->t->ndevices--;
	close(in);
	return err;
out:
	if (listed)
		tk->t->ndevices--;
	close(in);
	return err;
}

/* The cap a staged file of st is past (TARGET_LEFT_*), or 0. */
static unsigned int file_cap(const struct take *tk, const struct stat *st)
{
	if ((unsigned long long)st->st_size >
	    testpoint_limit("stage_file_bytes", STAGE_MAX_FILE_BYTES))
		return TARGET_LEFT_FILE_BYTES;
	if (*tk->files >= testpoint_limit("stage_files", STAGE_MAX_FILES))
		return TARGET_LEFT_FILES;
	return 0;
}

static int take_file(struct take *tk, int from, const char *name)
{
	unsigned int cap;
	struct stat st;
	int in, err = 0;

	if (open_staged(tk->t, from, name, STAGED_FILE, &in, &st)) {
		tk->t->stage_ignored++;
		return 0;
	}
	cap = file_cap(tk, &st);
	if (!cap)
		err = fsutil_move_file_at(from, name, in, st.st_size, tk->to,
					  tk->budget);
	close(in);
	/* The budget said no before a byte was written: none of it is kept. */
	if (err == -ENOSPC && tk->budget->refused) {
		cap = tk->budget->refused == FSUTIL_OVER_BUDGET ?
		      TARGET_LEFT_BUDGET : TARGET_LEFT_RESERVE;
		err = 0;
	}
	if (cap) {
		left_out(tk->t, cap);
		return 0;
	}
	if (err)
		return err;
	(*tk->files)++;
	if (tk->level == AT_DEVICE && has_prefix(name, strlen(name), PROFDIR_DEVICE_INFO) &&
	    !strcmp(name + strlen(PROFDIR_DEVICE_INFO), tk->dev))
		tk->device->has_info = true;
	return 0;
}

static int take_at(int from, const char *name, void *ctx)
{
	struct take *tk = ctx;

	switch (staged_kind(tk, name)) {
	case STAGED_DIR:
		return take_dir(tk, from, name);
	case STAGED_FILE:
		return take_file(tk, from, name);
	default:
		tk->t->stage_ignored++;
		return 0;
	}
}

/*
 * The window's PROF_ directory: one per START.  Should there be more (an
 * earlier one left, or one planted), the latest-named is taken, the rest
 * counted with the strays.
 */
static int pick_run(int dir, const char *name, void *ctx)
{
	char *run = ctx;

	(void)dir;
	if (proflayout_name_ok(name) && strcmp(name, run) > 0)
		memcpy(run, name, PROFDIR_NAME_LEN + 1);
	return 0;
}

int target_collect_device_data(struct target *t, struct fsutil_budget *b)
{
	char run[PROFDIR_NAME_LEN + 1] = "";
	unsigned int files = 0;
	struct take tk = {
		.t = t, .to = t->dir_fd, .level = AT_STAGE, .run = run,
		.files = &files, .budget = b,
	};
	int err;

	if (t->stage_fd < 0 || t->dir_fd < 0)
		return 0;
	err = fsutil_dir_for_each(t->stage_fd, pick_run, run);
	if (!err)
		err = fsutil_dir_for_each(t->stage_fd, take_at, &tk);
	/* What was not taken is no later window's: the stage starts empty. */
	fsutil_dir_remove_all(t->stage_fd, t->uid);
	if (err && !t->device_err)
		t->device_err = err;
	return err;
}

/* One cap of TARGET_LEFT_*, in words, with the limit it stands for. */
static void cap_text(unsigned int cap, const struct fsutil_budget *b,
		     char *buf, size_t len)
{
	char size[32];

	switch (cap) {
	case TARGET_LEFT_BUDGET:
		snprintf(buf, len, "past the window's %s copy budget (all targets')",
			 fsutil_size_text(b->max, size, sizeof(size)));
		break;
	case TARGET_LEFT_RESERVE:
		snprintf(buf, len, "into the output's free-space reserve");
		break;
	case TARGET_LEFT_FILES:
		snprintf(buf, len, "past %llu files",
			 testpoint_limit("stage_files", STAGE_MAX_FILES));
		break;
	case TARGET_LEFT_FILE_BYTES:
		snprintf(buf, len, "over %s a file",
			 fsutil_size_text(testpoint_limit("stage_file_bytes",
							  STAGE_MAX_FILE_BYTES),
					  size, sizeof(size)));
		break;
	default:
		snprintf(buf, len, "past %d device directories", TARGET_MAX_DEVICES);
	}
}

const char *target_left_out_text(const struct target *t,
				 const struct fsutil_budget *b, char *buf,
				 size_t len)
{
	unsigned int cap;
	char one[96];
	size_t n = 0;

	*buf = '\0';
	for (cap = 1; cap <= TARGET_LEFT_DEVICES && n < len; cap <<= 1) {
		if (!(t->stage_left_why & cap))
			continue;
		cap_text(cap, b, one, sizeof(one));
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", one);
	}
	return buf;
}

int target_disconnect(struct target *t)
{
	int err = 0;

	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	/*
	 * What the agent flushed after the last collect (a connection that
	 * ended inside a window) is ours to remove too.
	 */
	if (t->stage_fd >= 0) {
		err = fsutil_dir_remove_all(t->stage_fd, t->uid);
		close(t->stage_fd);
		if (unlinkat(t->stage_parent_fd, t->stage_name, AT_REMOVEDIR) &&
		    !err)
			err = -errno;
	}
	t->stage_fd = -1;
	if (t->stage_parent_fd >= 0)
		close(t->stage_parent_fd);
	t->stage_parent_fd = -1;
	return err;
}
