// SPDX-License-Identifier: MIT
/*
 * The agent's socket server: one thread that owns the task's
 * dynamic_profiling_socket_<pid> and answers msprof, one connection at a
 * time.  It does only socket and file work, so the task never waits on it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "msprof/cann_report.h"
#include "msprof/protocol.h"
#include "common/fsutil.h"
#include "common/home.h"
#include "cann_report.h"
#include "devdata.h"
#include "log.h"
#include "server.h"

/* One controller's connection. */
struct conn {
	int fd;
	bool started;
	struct agent_devices *devs;
	const struct agent_server_limits *lim;
	uint64_t yield_by;	/* a window's end once a client waits, 0: none */
	int next;		/* the client that waits, accepted; -1: none */
	bool next_real;		/* it has sent something */
	uint64_t next_by;	/* when it counts as silent */
	char dir[MSPROF_PARAMS_LEN];	/* result_dir: where windows' PROF_ dirs go */
	bool task_time;			/* taskTime: device tasks are collected */
	uint32_t report;		/* MSPROF_REPORT_*: what the runtime reports */
	char run[PATH_MAX];		/* this window's PROF_ directory */
};

/* A reply never waits long: a client that does not read loses its connection. */
static int reply(struct conn *c, int32_t type, int32_t status)
{
	struct msprof_msg msg = { .type = type, .status = status };

	return msprof_write_by(c->fd, &msg, sizeof(msg),
			       msprof_now_ms() + c->lim->request_ms, -1);
}

/* A switch of the params: a missing one is on, as to the runtime. */
static bool param_on(const char *json, const char *key)
{
	char v[8];

	return msprof_json_get_str(json, key, v, sizeof(v)) || strcmp(v, "off");
}

/*
 * The keys a CANN runtime reads (docs/output.md), of which only
 * these matter here; others are ignored, and a missing one means what it
 * means to the runtime: on.  Without result_dir there is nowhere to write.
 */
static int32_t conn_params(struct conn *c, struct msprof_params_msg *params)
{
	const char *json = params->data;

	if (params->len >= sizeof(params->data))
		return MSPROF_FAIL;
	params->data[params->len] = '\0';
	if (msprof_json_get_str(json, "result_dir", c->dir, sizeof(c->dir)) ||
	    !c->dir[0])
		return MSPROF_FAIL;
	c->task_time = param_on(json, "taskTime");
	c->report = (param_on(json, "acl") ? MSPROF_REPORT_ACL : 0) |
		    (param_on(json, "runtimeApi") ? MSPROF_REPORT_RUNTIME : 0) |
		    (c->task_time ? MSPROF_REPORT_TASK : 0) |
		    (param_on(json, "hcclTrace") ? MSPROF_REPORT_HCCL : 0);
	return MSPROF_SUCCESS;
}

/*
 * Each window has a PROF_ directory of its own, made at its START as a
 * runtime makes one; a task without a device runtime leaves no trace.
 * Should it fail here, the flush tries again and says why.
 */
static int32_t conn_start(struct conn *c)
{
	if (c->started)
		return MSPROF_ALREADY_START;
	if (devdata_run_dir_name(c->dir, c->run, sizeof(c->run)) ||
	    (c->task_time && agent_devices_start(c->devs)))
		return MSPROF_FAIL;
	if (c->task_time && agent_devices_any(c->devs))
		fsutil_mkdir_p(c->run, 0755);
	cann_report_start(c->report);
	c->started = true;
	return MSPROF_SUCCESS;
}

/*
 * The runtime's reports end with the devices' window; npusim's flush
 * writes them (its stats count them), and what no backend wrote (taskTime
 * off, or no npusim) is written here.
 */
static int32_t conn_stop(struct conn *c)
{
	struct cann_report_stats st;
	int err = 0, ret;

	if (!c->started)
		return MSPROF_NOT_START;
	c->started = false;
	cann_report_stop();
	if (c->task_time && agent_devices_stop(c->devs, c->run))
		err = -EIO;
	ret = cann_report_flush(c->run, &st);
	if (ret)
		agent_err("%s/host/data: %s", c->run, strerror(-ret));
	return err || ret ? MSPROF_FAIL : MSPROF_SUCCESS;
}

/* QUIT, asked or not: a window still running ends, its data kept. */
static int32_t conn_quit(struct conn *c)
{
	return c->started ? conn_stop(c) : MSPROF_SUCCESS;
}

/*
 * Answers one request; false when the session is to end after it: at
 * QUIT, and, as a real server does, at a type it does not know (which
 * gets no answer of its own).  The request's status means nothing: the
 * real client leaves it uninitialised.
 */
static bool conn_request(struct conn *c, const struct msprof_msg *req)
{
	switch (req->type) {
	case MSPROF_START_REQ:
		return !reply(c, MSPROF_START_RSP, conn_start(c));
	case MSPROF_STOP_REQ:
		return !reply(c, MSPROF_STOP_RSP, conn_stop(c));
	case MSPROF_QUIT_REQ:
		reply(c, MSPROF_QUIT_RSP, conn_quit(c));
		return false;
	default:
		return false;
	}
}

/*
 * However a session ends (QUIT, the request past the limit, idle, a
 * message it does not know, a client that went quiet or away), it ends as
 * a real server ends it: DISCONNECT, then QUIT once more, whose answer
 * says whether a window still running could be stopped.  After a QUIT the
 * client so gets three messages.  Unlike the real server, the agent then
 * closes the connection.
 */
static void end_session(struct conn *c)
{
	reply(c, MSPROF_DISCONNECT_RSP, MSPROF_SUCCESS);
	reply(c, MSPROF_QUIT_RSP, conn_quit(c));
}

/* Only root and the task's own user may drive its profiling. */
static bool peer_allowed(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
	    len != sizeof(cred))
		return false;
	return !cred.uid || cred.uid == getuid() || cred.uid == geteuid();
}

/*
 * Takes the client waiting in the accept queue as the next one, to see
 * whether it means it: a client counts as waiting only once it has sent a
 * byte, so that a silent one (or a task probing whether our socket is
 * stale, which connects and hangs up at once) cannot push anyone out.
 */
static void take_next(struct conn *c, int listen_fd)
{
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (!peer_allowed(fd)) {
		close(fd);
		return;
	}
	c->next = fd;
	c->next_by = msprof_now_ms() + c->lim->params_ms;
}

/* The next client has sent something, or hung up. */
static bool next_means_it(struct conn *c)
{
	char b;

	if (recv(c->next, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 1)
		return true;
	close(c->next);
	c->next = -1;
	return false;
}

/*
 * Waits for the first byte of the next request: 0 once something came
 * (the read then has lim->request_ms for the rest), -ETIMEDOUT when the
 * connection has held the agent idle for long enough.  The rule:
 * - outside a window: idle_ms, and not at all once another client waits;
 * - inside a window: as long as nobody else waits, since a controller may
 *   keep a window open for hours without a word; once a client waits, the
 *   connection keeps the agent yield_ms more whatever it sends, so that
 *   even a busy one cannot keep the next client out for long.
 * The window's device data is flushed when the connection ends, as always.
 */
static int wait_request(struct conn *c, int listen_fd)
{
	uint64_t idle_by = msprof_now_ms() + c->lim->idle_ms;
	struct pollfd p[3] = {
		{ .fd = c->fd, .events = POLLIN },
		{ .events = POLLIN },
		{ .events = POLLIN },
	};
	uint64_t now, until;
	int n;

	for (;;) {
		now = msprof_now_ms();
		if (c->next_real && !c->started)
			return -ETIMEDOUT;
		/* A next client silent for params_ms is no client. */
		if (c->next >= 0 && !c->next_real && now >= c->next_by) {
			close(c->next);
			c->next = -1;
		}
		until = c->started ? UINT64_MAX : idle_by;
		if (c->yield_by && c->yield_by < until)
			until = c->yield_by;
		if (c->next >= 0 && !c->next_real && c->next_by < until)
			until = c->next_by;
		if (now >= until)
			return -ETIMEDOUT;
		/* One next client at a time: the rest wait in the queue. */
		p[1].fd = c->next < 0 ? listen_fd : -1;
		p[2].fd = c->next >= 0 && !c->next_real ? c->next : -1;
		n = poll(p, 3, until == UINT64_MAX ? -1 :
			 until - now > INT_MAX ? INT_MAX : (int)(until - now));
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n <= 0)
			continue;
		if (p[0].revents)
			return 0;
		if (p[1].revents & POLLIN)
			take_next(c, listen_fd);
		else if (p[1].revents)
			/* Shut down: the task exits, and ends this connection. */
			listen_fd = -1;
		if (!p[2].revents || !next_means_it(c))
			continue;
		c->next_real = true;
		c->yield_by = now + c->lim->yield_ms;
	}
}

void agent_server_serve(const struct agent_server *srv, int fd, int *next)
{
	struct conn c = {
		.fd = fd, .devs = srv->devs, .lim = &srv->limits, .next = -1,
	};
	struct msprof_params_msg params;
	struct msprof_msg req;
	int32_t status;
	unsigned int nr = 0;

	*next = -1;
	if (!peer_allowed(fd))
		return;
	/* The whole message by one deadline: a trickle cannot stretch it. */
	if (msprof_read_by(fd, &params, sizeof(params),
			   msprof_now_ms() + srv->limits.params_ms, -1))
		return;
	status = conn_params(&c, &params);
	if (reply(&c, MSPROF_PARAMS_RSP, status) || status != MSPROF_SUCCESS)
		return;
	/* QUIT is not counted: the request past MSPROF_MAX_MSGS is the last. */
	while (!wait_request(&c, srv->fd) &&
	       !msprof_read_by(fd, &req, sizeof(req),
			       msprof_now_ms() + srv->limits.request_ms, -1) &&
	       conn_request(&c, &req) && ++nr <= MSPROF_MAX_MSGS)
		;
	end_session(&c);
	*next = c.next;
}

/*
 * A socket file nobody listens on refuses a connection at once.  One that
 * is accepted is handed back in *held, to be closed only after HOLD_MS:
 * a real CANN server reads the parameters once, with a 1 s timeout, and
 * takes a hang-up before them for a bad message that ends its dynamic
 * profiling for good; after its timeout it never reads the connection.
 */
static bool is_stale(const char *path, int *held)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	bool stale;
	int fd;

	*held = -1;
	if (strlen(path) >= sizeof(addr.sun_path))
		return false;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	if (!connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		*held = fd;
		return false;
	}
	stale = errno == ECONNREFUSED;
	close(fd);
	return stale;
}

/*
 * A controller sends its parameters right after connect, and each request
 * in one piece: these bound a client that trickles bytes or sends none.
 */
#define AGENT_PARAMS_MS 3000
#define AGENT_REQUEST_MS 2000
/* How long a window keeps the agent once another client waits. */
#define AGENT_YIELD_MS 5000

/* How long an exiting task waits for its last window's flush. */
#define EXIT_FLUSH_WAIT_S 3

/* Most stale files removed at one start; the rest go at the next. */
#define MAX_STALE 64
/* Past a real server's 1 s wait for the parameters (is_stale()). */
#define HOLD_MS 1500

/* The pid a socket file is named for runs in this PID namespace. */
static bool alive_here(const char *pid)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(pid, &end, 10);
	if (errno || end == pid || *end || n <= 0 || n > INT_MAX)
		return false;
	return !kill((pid_t)n, 0) || errno == EPERM;
}

/* Connections is_stale() made to live servers, closed once it is safe. */
struct held {
	int fd[2 * MAX_STALE];
	int n;
};

static void hold(struct held *h, int fd)
{
	if (fd >= 0)
		h->fd[h->n++] = fd;
}

static void release(struct held *h)
{
	if (h->n)
		usleep(HOLD_MS * 1000);
	while (h->n)
		close(h->fd[--h->n]);
}

/*
 * Tasks killed before they could clean up leave their socket files behind,
 * and users' PID discovery lists them.  A file named for a process alive
 * here is left alone (probing it would cost a real server one of its
 * accepts).  Of the rest, only a file that refuses a connection twice, a
 * second apart, goes: a live task in another PID namespace sharing this
 * home still answers, whatever its number means here, and one that is
 * between bind() and listen() answers a moment later.
 */
static void remove_stale_sockets(const struct agent_server *srv)
{
	char dir[sizeof(srv->path)], *stale[MAX_STALE];
	size_t plen = strlen(MSPROF_SOCKET_PREFIX);
	struct held held = { .n = 0 };
	struct dirent *de;
	int i, fd, n = 0;
	char *slash;
	DIR *d;

	memcpy(dir, srv->path, sizeof(dir));
	slash = strrchr(dir, '/');
	if (!slash)
		return;
	*slash = '\0';
	d = opendir(dir);
	if (!d)
		return;
	while (n < MAX_STALE && held.n < MAX_STALE && (de = readdir(d))) {
		if (strncmp(de->d_name, MSPROF_SOCKET_PREFIX, plen) ||
		    alive_here(de->d_name + plen) ||
		    asprintf(&stale[n], "%s/%s", dir, de->d_name) < 0)
			continue;
		fd = -1;
		if (strcmp(stale[n], srv->path) && is_stale(stale[n], &fd))
			n++;
		else
			free(stale[n]);
		hold(&held, fd);
	}
	closedir(d);
	if (n)
		sleep(1);
	for (i = 0; i < n; i++) {
		if (is_stale(stale[i], &fd))
			unlink(stale[i]);
		hold(&held, fd);
		free(stale[i]);
	}
	release(&held);
}

/* agent_server_stop() shut the listening socket down: the task exits. */
static bool listener_shut(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLHUP);
}

static void *server_main(void *arg)
{
	struct agent_server *srv = arg;
	int fd, next = -1, last_err = 0;

	pthread_setname_np(pthread_self(), "msprof-agent");
	remove_stale_sockets(srv);
	for (;;) {
		if (next >= 0 && listener_shut(srv->fd)) {
			close(next);
			break;
		}
		fd = next >= 0 ? next : accept4(srv->fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0) {
			__atomic_store_n(&srv->conn_fd, fd, __ATOMIC_SEQ_CST);
			agent_server_serve(srv, fd, &next);
			__atomic_store_n(&srv->conn_fd, -1, __ATOMIC_SEQ_CST);
			close(fd);
			last_err = 0;
			continue;
		}
		/* agent_server_stop() shut the socket down: the task is exiting. */
		if (errno == EINVAL)
			break;
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		/* Out of descriptors or memory: retry slowly, say it once. */
		if (errno != last_err)
			agent_err("accept: %s", strerror(errno));
		last_err = errno;
		sleep(1);
	}
	close(srv->fd);
	sem_post(&srv->finished);
	return NULL;
}

/*
 * Signals stay with the task's own threads: the server thread is born with
 * all of them blocked.  Detached, so that it never holds up exit.
 */
static int server_spawn(struct agent_server *srv)
{
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t tid;
	int err;

	err = pthread_attr_init(&attr);
	if (err)
		return -err;
	sigfillset(&all);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&tid, &attr, server_main, srv);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return -err;
}

static unsigned int idle_timeout(void)
{
	const char *env = getenv("MSPROF_AGENT_IDLE_TIMEOUT_S");
	unsigned long s;
	char *end;

	if (!env)
		return MSPROF_IDLE_TIMEOUT_S;
	errno = 0;
	s = strtoul(env, &end, 10);
	if (errno || end == env || *end || !s || s > UINT_MAX)
		return MSPROF_IDLE_TIMEOUT_S;
	return (unsigned int)s;
}

int agent_server_start(struct agent_server *srv)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	const char *home = home_dir();
	struct stat st;
	int fd, err;

	if (!home)
		return -ENOENT;
	err = msprof_socket_path(addr.sun_path, sizeof(addr.sun_path), home,
				 getpid());
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A dead task with our pid (a container restarted) left its file. */
	if ((unlink(addr.sun_path) && errno != ENOENT) ||
	    bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		err = -errno;
		goto out_close;
	}
	/*
	 * The home may be writable by others (a root task keeping a user's
	 * HOME): a link put in the socket's place must not be followed.
	 */
	if (fchmodat(AT_FDCWD, addr.sun_path, 0600, AT_SYMLINK_NOFOLLOW) ||
	    listen(fd, 1) || lstat(addr.sun_path, &st)) {
		err = -errno;
		goto out_unlink;
	}
	srv->owner = getpid();
	srv->dev = st.st_dev;
	srv->ino = st.st_ino;
	srv->limits = (struct agent_server_limits){
		.params_ms = AGENT_PARAMS_MS,
		.request_ms = AGENT_REQUEST_MS,
		.yield_ms = AGENT_YIELD_MS,
		.idle_ms = idle_timeout() * 1000ull,
	};
	srv->conn_fd = -1;
	if (sem_init(&srv->finished, 0, 0)) {
		err = -errno;
		goto out_unlink;
	}
	memcpy(srv->path, addr.sun_path, sizeof(srv->path));
	srv->fd = fd;
	err = server_spawn(srv);
	if (!err)
		return 0;
	srv->fd = -1;
out_unlink:
	unlink(addr.sun_path);
out_close:
	close(fd);
	return err;
}

void agent_server_stop(struct agent_server *srv)
{
	struct timespec until;
	struct stat st;
	int conn;

	if (srv->fd < 0 || srv->owner != getpid())
		return;
	/* Another task of this pid may have taken the path over since. */
	if (!lstat(srv->path, &st) && st.st_dev == srv->dev &&
	    st.st_ino == srv->ino)
		unlink(srv->path);
	/* Wakes accept() with EINVAL; the thread then closes the socket. */
	shutdown(srv->fd, SHUT_RDWR);
	conn = __atomic_load_n(&srv->conn_fd, __ATOMIC_SEQ_CST);
	if (conn < 0)
		return;
	/*
	 * The task is exiting in the middle of a connection, maybe of a
	 * window: end it (the server flushes a started window whenever a
	 * connection ends) and give the flush a moment to finish.
	 */
	shutdown(conn, SHUT_RDWR);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += EXIT_FLUSH_WAIT_S;
	while (sem_timedwait(&srv->finished, &until) && errno == EINTR)
		;
}
