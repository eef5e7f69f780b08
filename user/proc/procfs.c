// SPDX-License-Identifier: MIT
/* What msprof learns about a task from /proc. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/rankid.h"
#include "common/printable.h"
#include "procfs.h"
#include "procread.h"

static FILE *proc_open(int pid, const char *what)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, what);
	return fopen(path, "re");
}

/*
 * execve() takes at most 6 MiB of arguments and environment together: past
 * that the task rewrote its environment's bounds (prctl), and no answer is
 * worth reading further for.
 */
#define ENVIRON_MAX (8u << 20)

static int getenv_stream(int fd, const char *name, char *out, size_t len)
{
	size_t nlen = strlen(name), at = 0, n = 0, total = 0;
	bool match = true;	/* the entry read so far may be name's */
	char buf[4096];
	ssize_t got, i;

	/* Streamed: an entry of any length (no NUL at all) costs no memory. */
	while (total < ENVIRON_MAX && (got = read(fd, buf, sizeof(buf)))) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		total += (size_t)got;
		for (i = 0; i < got; i++) {
			if (!buf[i]) {
				if (match && at > nlen)
					break;
				match = true;
				at = n = 0;
				continue;
			}
			if (!match)
				continue;
			if (at < nlen)
				match = buf[i] == name[at];
			else if (at == nlen)
				match = buf[i] == '=';
			else if (n + 1 < len)
				out[n++] = buf[i];
			else
				return -ENAMETOOLONG;
			at++;
		}
		if (i < got)
			break;
	}
	if (total >= ENVIRON_MAX && !(match && at > nlen))
		return -E2BIG;
	if (!match || at <= nlen)
		return -ENOENT;
	/* The last entry may end without its NUL: the task rewrote it. */
	out[n] = '\0';
	return 0;
}

/*
 * Opening and reading environ wait on the task's locks (its exec lock, its
 * memory map's) and fault its pages in: the task can hold those locks
 * while its own access to a file stalls (an exec flushing a file on a FUSE
 * mount whose daemon never answers), and root's msprof, --list included,
 * would wait with it for good.  So msprof's reader opens and reads
 * (procread.h), by its deadline.  An environment in memory takes
 * milliseconds.
 */
struct getenv_arg {
	char path[PATH_MAX];
	char name[256];
	size_t len;
};

static int getenv_in_reader(const void *arg, int in_fd, char *out, size_t cap,
			    size_t *len, int *fd)
{
	const struct getenv_arg *a = arg;
	int efd, err;

	(void)in_fd;
	(void)fd;
	if (a->len > cap)
		return -EINVAL;
	efd = open(a->path, O_RDONLY | O_CLOEXEC);
	err = efd < 0 ? -errno : getenv_stream(efd, a->name, out, a->len);
	if (efd >= 0)
		close(efd);
	*len = err ? 0 : strlen(out);
	return err;
}

int procfs_getenv_at(const char *path, const char *name, char *out, size_t len)
{
	struct getenv_arg a = { .len = len };
	struct procread_call c = {
		.fn = getenv_in_reader, .arg = &a, .arg_len = sizeof(a),
		.in_fd = -1, .out = out, .cap = len,
	};
	int err;

	/* The answer must fit the reader's message and our buffer. */
	if (len > PATH_MAX || !len ||
	    snprintf(a.name, sizeof(a.name), "%s", name) >= (int)sizeof(a.name) ||
	    snprintf(a.path, sizeof(a.path), "%s", path) >= (int)sizeof(a.path))
		return -EINVAL;
	err = procread_run(&c);
	if (!err && c.len >= len)
		err = -EPROTO;
	if (!err)
		out[c.len] = '\0';
	return err;
}

int procfs_getenv(int pid, const char *name, char *out, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	return procfs_getenv_at(path, name, out, len);
}

/* A whole /proc file, read in the reader; -E2BIG if it holds more than cap. */
static int read_in_reader(const void *arg, int in_fd, char *out, size_t cap,
			  size_t *len, int *fd)
{
	ssize_t n = 1;
	int rfd, err = 0;
	char more;

	(void)in_fd;
	(void)fd;
	rfd = open(arg, O_RDONLY | O_CLOEXEC);
	if (rfd < 0)
		return -errno;
	while (*len < cap) {
		n = read(rfd, out + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	if (n < 0)
		err = -errno;
	else if (n > 0 && read(rfd, &more, 1) > 0)
		err = -E2BIG;
	close(rfd);
	return err;
}

/* /proc/<pid>/<what>, at most cap bytes, within timeout_ms (0: the reader's). */
static int proc_read(int pid, const char *what, char *out, size_t cap,
		     size_t *len, unsigned int timeout_ms)
{
	char path[64];
	struct procread_call c = {
		.fn = read_in_reader, .arg = path, .in_fd = -1, .out = out,
		.cap = cap, .timeout_ms = timeout_ms,
	};
	int err;

	c.arg_len = (size_t)snprintf(path, sizeof(path), "/proc/%d/%s", pid,
				     what) + 1;
	err = procread_run(&c);
	*len = c.len;
	return err;
}

int procfs_rank_id(int pid)
{
	static const char *const names[] = RANKID_ENV_NAMES;
	char val[16];
	size_t i;
	int rank, err;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		err = procfs_getenv(pid, names[i], val, sizeof(val));
		/* One that did not answer: the next would not either. */
		if (procread_stalled(err))
			break;
		if (err)
			continue;
		rank = rankid_parse(val);
		if (rank >= 0)
			return rank;
	}
	return -1;
}

/* Finds "key:" in /proc/<pid>/status and returns the rest of its line. */
static int status_field(int pid, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);
	char line[512];
	int err = -ENOENT;
	FILE *fp;

	fp = proc_open(pid, "status");
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		if (strncmp(line, key, klen) || line[klen] != ':')
			continue;
		snprintf(out, len, "%s", line + klen + 1);
		err = 0;
		break;
	}
	fclose(fp);
	return err;
}

int procfs_parse_nspid(const char *field, int *ns_pid)
{
	const char *p = field;
	long v = 0;
	char *end;
	int n = 0;

	/* One pid per nesting level, the innermost last. */
	for (;;) {
		p += strspn(p, " \t");
		if (!*p || *p == '\n')
			break;
		if (*p < '0' || *p > '9')
			return -EPROTO;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || v <= 0 || v > INT_MAX ||
		    (*end && !strchr(" \t\n", *end)))
			return -EPROTO;
		p = end;
		n++;
	}
	if (!n)
		return -EPROTO;
	*ns_pid = (int)v;
	return 0;
}

int procfs_ns_pid(int pid, int *ns_pid)
{
	char buf[256];
	int err = status_field(pid, "NSpid", buf, sizeof(buf));

	if (err == -ENOENT) {	/* kernels before 4.1 */
		*ns_pid = pid;
		return 0;
	}
	return err ?: procfs_parse_nspid(buf, ns_pid);
}

static int procfs_ppid(int pid, int *ppid)
{
	char buf[64];
	int err = status_field(pid, "PPid", buf, sizeof(buf));

	if (!err)
		*ppid = atoi(buf);
	return err;
}

int procfs_tgid(int pid, int *tgid)
{
	char buf[64];
	int err = status_field(pid, "Tgid", buf, sizeof(buf));

	if (!err)
		*tgid = atoi(buf);
	return err;
}

/* The kernel's PF_KTHREAD, in the flags field of /proc/<pid>/stat. */
#define PF_KTHREAD 0x00200000u

/*
 * The fields of /proc/<pid>/stat after comm: *fields points into
 * line[len].  Read in the reader: it waits on the task's exec lock.
 * -errno if it cannot be read, -EPROTO if it makes no sense.
 */
static int stat_fields(int pid, char *line, size_t len, char **fields)
{
	size_t n;
	int err = proc_read(pid, "stat", line, len - 1, &n, 0);

	/* One line, far shorter than len: a longer one is no stat line. */
	if (err)
		return err == -E2BIG ? -EPROTO : err;
	line[n] = '\0';
	/* comm may hold anything, ')' too: the fields follow the last one. */
	*fields = strrchr(line, ')');
	return *fields ? 0 : -EPROTO;
}

int procfs_is_kthread(int pid, bool *kthread)
{
	char line[1024], *p;
	unsigned int flags;
	int err = stat_fields(pid, line, sizeof(line), &p);

	if (err)
		return err;
	if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %u", &flags) != 1)
		return -EPROTO;
	*kthread = flags & PF_KTHREAD;
	return 0;
}

int procfs_start_time(int pid, unsigned long long *ticks)
{
	char line[1024], *p;
	int err = stat_fields(pid, line, sizeof(line), &p);

	/* A read that did not answer is said; anything else is a process gone. */
	if (procread_stalled(err))
		return err;
	/* Field 22: clock ticks after boot. */
	if (err ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u"
		   " %*d %*d %*d %*d %*d %*d %llu", ticks) != 1)
		return -ESRCH;
	return 0;
}

/* The host's init is visible only from the initial pid namespace, as 1. */
int procfs_is_host_init(int pid, bool *init)
{
	struct stat st;
	int err;

	*init = false;
	if (pid != 1)
		return 0;
	err = procfs_ns(0, "pid", &st);
	if (err) {
		/* A kernel without namespaces has only the host's. */
		*init = err == -ENOENT;
		return *init ? 0 : err;
	}
	*init = st.st_ino == PROC_PID_INIT_INO;
	return 0;
}

int procfs_comm(int pid, char *out, size_t len)
{
	FILE *fp = proc_open(pid, "comm");

	if (!fp)
		return -errno;
	if (!fgets(out, (int)len, fp))
		*out = '\0';
	out[strcspn(out, "\n")] = '\0';
	fclose(fp);
	/*
	 * The task names itself, and msprof keeps the name in metadata and
	 * prints it (through printable() again, for the locale).
	 */
	printable_as(out, true);
	return 0;
}

int procfs_owner(int pid, uid_t *uid, gid_t *gid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (stat(path, &st))
		return -errno;
	*uid = st.st_uid;
	*gid = st.st_gid;
	return 0;
}

bool procfs_alive(int pid)
{
	char state[64];

	/* A zombie has a /proc entry but will never answer. */
	if (status_field(pid, "State", state, sizeof(state)))
		return false;
	return !strchr(state, 'Z');
}

static int stat_in_reader(const void *arg, int in_fd, char *out, size_t cap,
			  size_t *len, int *fd)
{
	struct stat st;

	(void)in_fd;
	(void)fd;
	if (cap < sizeof(st))
		return -EINVAL;
	if (stat(arg, &st))
		return -errno;
	memcpy(out, &st, sizeof(st));
	*len = sizeof(st);
	return 0;
}

int procfs_ns(int pid, const char *kind, struct stat *st)
{
	char path[64];
	struct procread_call c = {
		.fn = stat_in_reader, .arg = path, .in_fd = -1, .out = st,
		.cap = sizeof(*st),
	};
	int err;

	/* msprof's own: nothing else can hold it. */
	if (!pid) {
		snprintf(path, sizeof(path), "/proc/self/ns/%s", kind);
		return stat(path, st) ? -errno : 0;
	}
	/* Another's waits on its exec lock (ptrace_may_access). */
	c.arg_len = (size_t)snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid,
				     kind) + 1;
	err = procread_run(&c);
	return err ?: (c.len == sizeof(*st) ? 0 : -EPROTO);
}

int procfs_same_ns(int pid, const char *kind, bool *same)
{
	struct stat mine, task;
	int err = procfs_ns(0, kind, &mine);

	if (err) {
		/* A kernel without namespaces has one of each. */
		*same = err == -ENOENT;
		return *same ? 0 : err;
	}
	err = procfs_ns(pid, kind, &task);
	if (err)
		return err;
	*same = mine.st_dev == task.st_dev && mine.st_ino == task.st_ino;
	return 0;
}

int procfs_open_in_root(int pid, const char *path, int flags, int *fd)
{
	/*
	 * A link the task made, even a /proc magic one, must not take msprof
	 * (root) to a file of the host's.
	 */
	struct open_how how = {
		.flags = (unsigned int)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char root[64];
	int rfd, err = 0;

	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -errno;
	*fd = (int)syscall(SYS_openat2, rfd, path, &how, sizeof(how));
	if (*fd < 0)
		err = -errno;
	close(rfd);
	return err;
}

struct in_root_arg {
	int pid;
	int flags;
	bool want_fd;
	char path[PATH_MAX];
	char name[NAME_MAX + 1];	/* "": the path itself */
};

static int in_root_in_reader(const void *arg, int in_fd, char *out,
			     size_t cap, size_t *len, int *fd)
{
	const struct in_root_arg *a = arg;
	struct stat st;
	int dfd, err;

	(void)in_fd;
	if (cap < sizeof(st))
		return -EINVAL;
	err = procfs_open_in_root(a->pid, a->path, a->flags, &dfd);
	if (err)
		return err;
	if (*a->name ? fstatat(dfd, a->name, &st, AT_SYMLINK_NOFOLLOW) :
		       fstat(dfd, &st))
		err = -errno;
	if (!err && a->want_fd)
		*fd = dfd;	/* the reader closes its copy */
	else
		close(dfd);
	if (!err) {
		memcpy(out, &st, sizeof(st));
		*len = sizeof(st);
	}
	return err;
}

int procfs_stat_in_root(int pid, const char *path, const char *name,
			int flags, struct stat *st, int *fd)
{
	struct in_root_arg a = { .pid = pid, .flags = flags, .want_fd = fd };
	struct procread_call c = {
		.fn = in_root_in_reader, .arg = &a, .arg_len = sizeof(a),
		.in_fd = -1, .out = st, .cap = sizeof(*st),
	};
	int err;

	if (snprintf(a.path, sizeof(a.path), "%s", path) >= (int)sizeof(a.path) ||
	    snprintf(a.name, sizeof(a.name), "%s", name ? name : "") >=
	    (int)sizeof(a.name))
		return -ENAMETOOLONG;
	err = procread_run(&c);
	if (!err && (c.len != sizeof(*st) || (fd && c.fd < 0)))
		err = -EPROTO;
	if (!err && fd) {
		*fd = c.fd;
		return 0;
	}
	if (c.fd >= 0)
		close(c.fd);
	return err;
}

bool procfs_is_descendant(int pid, int ancestor)
{
	int depth;

	for (depth = 0; depth < 64 && pid > 1; depth++) {
		if (pid == ancestor)
			return true;
		if (procfs_ppid(pid, &pid))
			return false;
	}
	return false;
}

/*
 * The whole of maps is read first (in the reader: opening it waits on the
 * task's exec lock), then walked: a process has at most 65530 mappings
 * (vm.max_map_count), of a line each, a few MiB even with long paths.
 */
#define MAPS_MAX PROCREAD_OUT_MAX
#define MAPS_TIMEOUT_MS 5000
/* A longer line (a path past PATH_MAX, which the task chose) is skipped. */
#define MAPS_LINE_MAX (4096 + 128)

/* One line of maps (NUL-ended): fn's return, 0 if it is not one for fn. */
static int exec_map(int pid, char *line, char *last, size_t last_len,
		    procfs_map_fn fn, void *ctx)
{
	unsigned long long lo, hi, pgoff;
	char perms[8], *path, file[96];
	struct procfs_map m;

	if (sscanf(line, "%llx-%llx %7s %llx", &lo, &hi, perms, &pgoff) != 4 ||
	    perms[2] != 'x')
		return 0;
	path = strchr(line, '/');
	/* Segments of one file are adjacent: skip repeats cheaply. */
	if (!path || !strcmp(path, last))
		return 0;
	snprintf(last, last_len, "%s", path);
	snprintf(file, sizeof(file), "/proc/%d/map_files/%llx-%llx", pid, lo, hi);
	m = (struct procfs_map){ .path = path, .file = file, .start = lo,
				 .end = hi, .pgoff = pgoff };
	return fn(&m, ctx);
}

int procfs_exec_maps(int pid, procfs_map_fn fn, void *ctx)
{
	char *buf = malloc(MAPS_MAX + 1), *line, *nl, last[4096] = "";
	size_t len;
	int err;

	if (!buf)
		return -ENOMEM;
	err = proc_read(pid, "maps", buf, MAPS_MAX, &len, MAPS_TIMEOUT_MS);
	buf[err ? 0 : len] = '\0';
	/* The last line without its newline is one cut short: not taken. */
	for (line = buf; !err && (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		if ((size_t)(nl - line) < MAPS_LINE_MAX)
			err = exec_map(pid, line, last, sizeof(last), fn, ctx);
	}
	free(buf);
	return err;
}
