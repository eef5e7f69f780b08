// SPDX-License-Identifier: MIT
/*
 * The agent's socket server: one thread that owns the task's
 * dynamic_profiling_socket_<pid> and answers msprof, one connection at a
 * time.  It does only socket and file work, so the task never waits on it.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "msprof/protocol.h"
#include "agent_int.h"

/* One controller's connection. */
struct conn {
	int fd;
	bool started;
	struct agent_devices *devs;
	char dir[MSPROF_PARAMS_LEN];	/* where each window's device data goes */
};

static int reply(struct conn *c, int32_t type, int32_t status)
{
	struct msprof_msg msg = { .type = type, .status = status };

	return msprof_write_full(c->fd, &msg, sizeof(msg));
}

static int32_t conn_params(struct conn *c, struct msprof_params_msg *params)
{
	if (params->len >= sizeof(params->data))
		return MSPROF_FAIL;
	params->data[params->len] = '\0';
	if (msprof_json_get_str(params->data, "output", c->dir,
				sizeof(c->dir)) || !c->dir[0])
		return MSPROF_FAIL;
	return MSPROF_SUCCESS;
}

static int32_t conn_start(struct conn *c)
{
	if (c->started)
		return MSPROF_ALREADY_START;
	if (agent_devices_start(c->devs))
		return MSPROF_FAIL;
	c->started = true;
	return MSPROF_SUCCESS;
}

static int32_t conn_stop(struct conn *c)
{
	if (!c->started)
		return MSPROF_NOT_START;
	c->started = false;
	return agent_devices_stop(c->devs, c->dir) ? MSPROF_FAIL : MSPROF_SUCCESS;
}

/* Answers one request; false when the connection is to end after it. */
static bool conn_request(struct conn *c, const struct msprof_msg *req)
{
	int32_t status;

	switch (req->type) {
	case MSPROF_START_REQ:
		status = conn_start(c);
		break;
	case MSPROF_STOP_REQ:
		status = conn_stop(c);
		break;
	case MSPROF_QUIT_REQ:
		status = c->started ? conn_stop(c) : MSPROF_SUCCESS;
		reply(c, MSPROF_QUIT_RSP, status);
		return false;
	default:
		status = MSPROF_FAIL;
		break;
	}
	/* Unsigned: a hostile type of INT32_MAX must not overflow. */
	return !reply(c, (int32_t)((uint32_t)req->type + 1), status);
}

/*
 * A window may well last longer than the idle limit: only a connection
 * that is idle outside a window times out.
 */
static int read_request(const struct conn *c, struct msprof_msg *req)
{
	int err;

	do
		err = msprof_read_full(c->fd, req, sizeof(*req));
	while (err == -EAGAIN && c->started);
	return err;
}

static void serve(struct agent_server *srv, int fd)
{
	struct timeval idle = { .tv_sec = srv->idle_s };
	struct conn c = { .fd = fd, .devs = srv->devs };
	struct msprof_params_msg params;
	struct msprof_msg req;
	int32_t status;
	int nr;

	/* A controller that went silent must not hold the server forever. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof(idle)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &idle, sizeof(idle)))
		return;
	if (msprof_read_full(fd, &params, sizeof(params)))
		return;
	status = conn_params(&c, &params);
	if (reply(&c, MSPROF_PARAMS_RSP, status) || status != MSPROF_SUCCESS)
		return;
	for (nr = 1; nr <= MSPROF_MAX_MSGS; nr++) {
		if (read_request(&c, &req) || !conn_request(&c, &req))
			break;
	}
	if (nr > MSPROF_MAX_MSGS)
		reply(&c, MSPROF_DISCONNECT_RSP, MSPROF_SUCCESS);
	/* However the connection ends, the window's device data is kept. */
	if (c.started)
		conn_stop(&c);
}

/* A socket file nobody listens on refuses a connection at once. */
static bool is_stale(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	bool stale;
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path))
		return false;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	stale = connect(fd, (struct sockaddr *)&addr, sizeof(addr)) &&
		errno == ECONNREFUSED;
	close(fd);
	return stale;
}

/* How long an exiting task waits for its last window's flush. */
#define EXIT_FLUSH_WAIT_S 3

/* Most stale files removed at one start; the rest go at the next. */
#define MAX_STALE 64

/*
 * Tasks killed before they could clean up leave their socket files behind,
 * and users' PID discovery lists them.  Only a file that refuses a
 * connection twice, a second apart, goes: a live task in another PID
 * namespace sharing this home still answers, whatever its number means
 * here, and one that is between bind() and listen() answers a moment later.
 */
static void remove_stale_sockets(const struct agent_server *srv)
{
	char dir[sizeof(srv->path)], *stale[MAX_STALE];
	size_t plen = strlen(MSPROF_SOCKET_PREFIX);
	struct dirent *de;
	int i, n = 0;
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
	while (n < MAX_STALE && (de = readdir(d))) {
		if (strncmp(de->d_name, MSPROF_SOCKET_PREFIX, plen) ||
		    asprintf(&stale[n], "%s/%s", dir, de->d_name) < 0)
			continue;
		if (strcmp(stale[n], srv->path) && is_stale(stale[n]))
			n++;
		else
			free(stale[n]);
	}
	closedir(d);
	if (n)
		sleep(1);
	for (i = 0; i < n; i++) {
		if (is_stale(stale[i]))
			unlink(stale[i]);
		free(stale[i]);
	}
}

static void *server_main(void *arg)
{
	struct agent_server *srv = arg;
	int fd, last_err = 0;

	pthread_setname_np(pthread_self(), "msprof-agent");
	remove_stale_sockets(srv);
	for (;;) {
		fd = accept4(srv->fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0) {
			__atomic_store_n(&srv->conn_fd, fd, __ATOMIC_SEQ_CST);
			serve(srv, fd);
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

static const char *home_dir(void)
{
	const char *home = getenv("HOME");
	struct passwd *pw;

	if (home && home[0])
		return home;
	pw = getpwuid(getuid());
	return pw ? pw->pw_dir : NULL;
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
	if (chmod(addr.sun_path, 0600) || listen(fd, 1) ||
	    stat(addr.sun_path, &st)) {
		err = -errno;
		goto out_unlink;
	}
	srv->owner = getpid();
	srv->dev = st.st_dev;
	srv->ino = st.st_ino;
	srv->idle_s = idle_timeout();
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
	if (!stat(srv->path, &st) && st.st_dev == srv->dev &&
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
