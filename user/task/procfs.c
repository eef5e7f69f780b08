// SPDX-License-Identifier: MIT
/* What msprof learns about a task from /proc. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/printable.h"
#include "procfs.h"

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
 * while its own access to a file stalls (on a FUSE mount it made in a user
 * namespace, whose daemon never answers), and root's msprof, --list
 * included, would wait with it for good.  So a child opens and reads, and
 * is killed at the deadline (those waits are killable).  An environment in
 * memory takes milliseconds.
 */
#define ENVIRON_READ_S 1

/*
 * What the child says: its result, then the value if there is one.  path,
 * if not NULL, is opened for fd.
 */
static void getenv_child(const char *path, int fd, int reply,
			 const char *name, char *out, size_t len)
{
	char buf[sizeof(int) + PATH_MAX];
	int err;
	size_t n;

	if (path)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? -errno : getenv_stream(fd, name, out, len);
	n = err ? 0 : strlen(out);

	memcpy(buf, &err, sizeof(err));
	memcpy(buf + sizeof(err), out, n);
	/* Far less than a pipe holds: written whole, or not at all. */
	_exit(write(reply, buf, sizeof(err) + n) < 0);
}

/* The child's answer, by the deadline; -ETIMEDOUT, -EINTR, -EPROTO. */
static int getenv_reply(int reply, char *out, size_t len)
{
	uint64_t end = clock_ns(CLOCK_MONOTONIC) + ENVIRON_READ_S * 1000000000ull;
	char buf[sizeof(int) + PATH_MAX];
	size_t got = 0;
	struct pollfd pfd = { .fd = reply, .events = POLLIN };
	uint64_t now, ms;
	ssize_t n;
	int err;

	for (;;) {
		now = clock_ns(CLOCK_MONOTONIC);
		ms = now < end ? (end - now) / 1000000 : 0;
		if (!ms)
			return -ETIMEDOUT;
		/* A signal ends the wait, as every wait of msprof's. */
		if (poll(&pfd, 1, (int)ms) < 0)
			return -errno;
		n = read(reply, buf + got, sizeof(buf) - got);
		if (n < 0 && errno != EAGAIN)
			return -errno;
		if (!n)
			break;
		if (n > 0)
			got += (size_t)n;
	}
	if (got < sizeof(err))
		return -EPROTO;
	memcpy(&err, buf, sizeof(err));
	got -= sizeof(err);
	if (err)
		return err;
	if (got >= len)
		return -EPROTO;
	memcpy(out, buf + sizeof(err), got);
	out[got] = '\0';
	return 0;
}

static int getenv_timed(const char *path, int fd, const char *name,
			char *out, size_t len)
{
	int p[2], err;
	pid_t child;

	/* The child's answer must fit the pipe and our buffer. */
	if (len > PATH_MAX)
		return -EINVAL;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	child = fork();
	if (!child) {
		close(p[0]);
		getenv_child(path, fd, p[1], name, out, len);
	}
	err = child < 0 ? -errno : 0;
	close(p[1]);
	if (!err)
		err = getenv_reply(p[0], out, len);
	close(p[0]);
	if (child > 0) {
		kill(child, SIGKILL);
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
	}
	return err;
}

int procfs_getenv_fd(int fd, const char *name, char *out, size_t len)
{
	return getenv_timed(NULL, fd, name, out, len);
}

int procfs_getenv(int pid, const char *name, char *out, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	return getenv_timed(path, -1, name, out, len);
}

int procfs_rank_parse(const char *val)
{
	size_t n = strlen(val);

	/* As the runtime takes RANK_ID: digits only, and an int's worth. */
	if (!n || n > 9 || strspn(val, "0123456789") != n)
		return -1;
	return atoi(val);
}

int procfs_rank_id(int pid)
{
	static const char *const names[] = { "RANK_ID", "RANK" };
	char val[16];
	size_t i;
	int rank;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (procfs_getenv(pid, names[i], val, sizeof(val)))
			continue;
		rank = procfs_rank_parse(val);
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
 * line[len].  -errno if it cannot be read, -EPROTO if it makes no sense.
 */
static int stat_fields(int pid, char *line, int len, char **fields)
{
	FILE *fp;
	char *p;

	fp = proc_open(pid, "stat");
	if (!fp)
		return -errno;
	p = fgets(line, len, fp);
	fclose(fp);
	/* comm may hold anything, ')' too: the fields follow the last one. */
	*fields = p ? strrchr(line, ')') : NULL;
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

	/* Field 22: clock ticks after boot. */
	if (stat_fields(pid, line, sizeof(line), &p) ||
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
	/* The task names itself, and msprof prints the name. */
	printable(out);
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

int procfs_ns(int pid, const char *kind, struct stat *st)
{
	char path[64];

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, kind);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/%s", kind);
	return stat(path, st) ? -errno : 0;
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

int procfs_exec_maps(int pid, procfs_map_fn fn, void *ctx)
{
	char line[4096 + 128], last[4096] = "", file[96];
	unsigned long long lo, hi, pgoff;
	struct procfs_map m;
	int err = 0;
	FILE *fp;

	fp = proc_open(pid, "maps");
	if (!fp)
		return -errno;
	while (!err && fgets(line, sizeof(line), fp)) {
		char perms[8], *path;
		int c;

		/*
		 * A longer line (a path past PATH_MAX, which the task chose)
		 * is skipped whole: its tail must not pass for a line.
		 */
		if (!strchr(line, '\n')) {
			while ((c = getc(fp)) != EOF && c != '\n')
				;
			continue;
		}
		if (sscanf(line, "%llx-%llx %7s %llx", &lo, &hi, perms,
			   &pgoff) != 4 ||
		    perms[2] != 'x')
			continue;
		path = strchr(line, '/');
		if (!path)
			continue;
		path[strcspn(path, "\n")] = '\0';
		/* Segments of one file are adjacent: skip repeats cheaply. */
		if (!strcmp(path, last))
			continue;
		snprintf(last, sizeof(last), "%s", path);
		snprintf(file, sizeof(file), "/proc/%d/map_files/%llx-%llx", pid,
			 lo, hi);
		m = (struct procfs_map){ .path = path, .file = file,
					 .start = lo, .end = hi, .pgoff = pgoff };
		err = fn(&m, ctx);
	}
	fclose(fp);
	return err;
}
