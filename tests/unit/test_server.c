// SPDX-License-Identifier: MIT
/*
 * The agent's server, run inside this test process: with no accelerator
 * runtime here its backends stay closed, so only the protocol is exercised.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "msprof/agent.h"
#include "msprof/protocol.h"
#include "agent/devices.h"
#include "agent/server.h"
#include "unit.h"

/* The agent's $HOME: the server lives as long as this process. */
static char home[] = "/tmp/msprof-agent-unit-XXXXXX";
static char sock[sizeof(((struct sockaddr_un *)0)->sun_path)];

/* Starts the agent once, with a short idle timeout, then connects to it. */
static int agent_connect(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 10 };
	int fd;

	if (!sock[0]) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(home));
		setenv("HOME", home, 1);
		setenv("PROFILING_MODE", "dynamic", 1);
		setenv("MSPROF_AGENT_IDLE_TIMEOUT_S", "1", 1);
		CU_ASSERT_EQUAL_FATAL(msprof_agent_start(), 0);
		CU_ASSERT_EQUAL(msprof_agent_start(), 0);
		unsetenv("MSPROF_AGENT_IDLE_TIMEOUT_S");
		unsetenv("PROFILING_MODE");
		msprof_socket_path(sock, sizeof(sock), home, getpid());
	}
	memcpy(addr.sun_path, sock, sizeof(sock));
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	CU_ASSERT_EQUAL(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	return fd;
}

/* A bound for the test's own waits on the agent. */
static uint64_t soon(void)
{
	return msprof_now_ms() + 10000;
}

static int32_t send_params(int fd, const char *json)
{
	struct msprof_params_msg params;
	struct msprof_msg rsp = { -1, -1 };

	CU_ASSERT_EQUAL(msprof_params_pack(&params, json), 0);
	CU_ASSERT_EQUAL(msprof_write_by(fd, &params, sizeof(params), soon(), -1), 0);
	CU_ASSERT_EQUAL(msprof_read_by(fd, &rsp, sizeof(rsp), soon(), -1), 0);
	CU_ASSERT_EQUAL(rsp.type, MSPROF_PARAMS_RSP);
	return rsp.status;
}

static void expect_reply(int fd, int32_t type, int32_t status)
{
	struct msprof_msg rsp = { -1, -1 };

	CU_ASSERT_EQUAL(msprof_read_by(fd, &rsp, sizeof(rsp), soon(), -1), 0);
	CU_ASSERT_EQUAL(rsp.type, type);
	CU_ASSERT_EQUAL(rsp.status, status);
}

/*
 * The real client leaves a request's status uninitialised: whatever it
 * holds, the agent must not look at it.
 */
static int32_t garbage(void)
{
	static uint32_t x = 0x9e3779b9;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return (int32_t)x;
}

static void send_request(int fd, int32_t type)
{
	struct msprof_msg req = { .type = type, .status = garbage() };

	CU_ASSERT_EQUAL(msprof_write_by(fd, &req, sizeof(req), soon(), -1), 0);
}

static void request(int fd, int32_t type, int32_t status)
{
	send_request(fd, type);
	expect_reply(fd, type + 1, status);
}

static void expect_closed(int fd)
{
	char c;

	CU_ASSERT_EQUAL(read(fd, &c, 1), 0);
	close(fd);
}

/*
 * A session ends as a real server ends it: DISCONNECT, then QUIT's
 * answer (whether a window still running stopped); the agent then closes.
 */
static void expect_session_end(int fd, int32_t quit_status)
{
	expect_reply(fd, MSPROF_DISCONNECT_RSP, MSPROF_SUCCESS);
	expect_reply(fd, MSPROF_QUIT_RSP, quit_status);
	expect_closed(fd);
}

static void test_requests(void)
{
	int fd = agent_connect();
	struct stat st;

	CU_ASSERT(!stat(sock, &st) && S_ISSOCK(st.st_mode));
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	CU_ASSERT_EQUAL(send_params(fd, "{\"result_dir\": \"/nonexistent/out\"}"),
			MSPROF_SUCCESS);
	request(fd, MSPROF_STOP_REQ, MSPROF_NOT_START);
	request(fd, MSPROF_START_REQ, MSPROF_SUCCESS);
	request(fd, MSPROF_START_REQ, MSPROF_ALREADY_START);
	/* Without a device runtime nothing is written, so no directory either. */
	request(fd, MSPROF_STOP_REQ, MSPROF_SUCCESS);
	request(fd, MSPROF_START_REQ, MSPROF_SUCCESS);
	/* Three messages after QUIT, as from a real server. */
	request(fd, MSPROF_QUIT_REQ, MSPROF_SUCCESS);
	expect_session_end(fd, MSPROF_SUCCESS);
}

/* A type it does not know ends the session, a window in it too. */
static void test_bad_type(void)
{
	int fd = agent_connect();

	CU_ASSERT_EQUAL(send_params(fd, "{\"result_dir\": \"/tmp\"}"), MSPROF_SUCCESS);
	request(fd, MSPROF_START_REQ, MSPROF_SUCCESS);
	send_request(fd, MSPROF_STOP_RSP);
	expect_session_end(fd, MSPROF_SUCCESS);

	fd = agent_connect();
	CU_ASSERT_EQUAL(send_params(fd, "{\"result_dir\": \"/tmp\"}"), MSPROF_SUCCESS);
	send_request(fd, -1);
	expect_session_end(fd, MSPROF_SUCCESS);
}

/*
 * The real msprof client's sequence: parameters, then START, STOP, QUIT
 * with garbage in their status, one reply read each, the type checked to
 * be the request's + 1; it closes after QUIT.
 */
static void test_real_client(void)
{
	int fd = agent_connect();
	int i;

	CU_ASSERT_EQUAL(send_params(fd, "{\"result_dir\": \"/tmp\"}"), MSPROF_SUCCESS);
	for (i = 0; i < 3; i++) {
		request(fd, MSPROF_START_REQ, MSPROF_SUCCESS);
		request(fd, MSPROF_STOP_REQ, MSPROF_SUCCESS);
	}
	request(fd, MSPROF_QUIT_REQ, MSPROF_SUCCESS);
	close(fd);
}

static void test_bad_params(void)
{
	struct msprof_params_msg params;
	int fd = agent_connect();

	CU_ASSERT_EQUAL(send_params(fd, "{\"output\": \"/tmp\"}"), MSPROF_FAIL);
	expect_closed(fd);

	fd = agent_connect();
	memset(&params, 'x', sizeof(params));
	params.len = sizeof(params.data);
	CU_ASSERT_EQUAL(msprof_write_by(fd, &params, sizeof(params), soon(), -1), 0);
	expect_reply(fd, MSPROF_PARAMS_RSP, MSPROF_FAIL);
	expect_closed(fd);
}

static void test_message_limit(void)
{
	int fd = agent_connect();
	int i;

	CU_ASSERT_EQUAL(send_params(fd, "{\"result_dir\": \"/tmp\"}"), MSPROF_SUCCESS);
	/* QUIT is not counted; the 101st request is answered, then the end. */
	for (i = 0; i <= MSPROF_MAX_MSGS; i++)
		request(fd, i % 2 ? MSPROF_STOP_REQ : MSPROF_START_REQ,
			MSPROF_SUCCESS);
	/* It was a START: the window is stopped as the session ends. */
	expect_session_end(fd, MSPROF_SUCCESS);

	/* A new connection counts from zero again. */
	fd = agent_connect();
	CU_ASSERT_EQUAL(send_params(fd, "{\"result_dir\": \"/tmp\"}"), MSPROF_SUCCESS);
	request(fd, MSPROF_START_REQ, MSPROF_SUCCESS);
	request(fd, MSPROF_QUIT_REQ, MSPROF_SUCCESS);
	expect_session_end(fd, MSPROF_SUCCESS);
}

static void test_idle_timeout(void)
{
	int fd = agent_connect();

	CU_ASSERT_EQUAL(send_params(fd, "{\"result_dir\": \"/tmp\"}"), MSPROF_SUCCESS);
	expect_session_end(fd, MSPROF_SUCCESS);
	/* The agent's exit handler finds its file gone and leaves it be. */
	CU_ASSERT_EQUAL(unlink(sock), 0);
	CU_ASSERT_EQUAL(rmdir(home), 0);
}

/*
 * One connection served in this thread with short limits, the client's
 * bytes already sent: how long the agent held it, in ms.
 */
static uint64_t serve_ms(int listen_fd, int conn)
{
	/* No runtime in this process: no backend ever opens. */
	static struct agent_devices devs;
	const struct agent_server srv = {
		.fd = listen_fd,
		.devs = &devs,
		.limits = { .params_ms = 200, .request_ms = 200,
			    .yield_ms = 300, .idle_ms = 60000 },
	};
	uint64_t t0 = msprof_now_ms();
	int next;

	agent_server_serve(&srv, conn, &next);
	close(conn);
	if (next >= 0)
		close(next);
	return msprof_now_ms() - t0;
}

/* A socketpair whose client end (sv[0]) has sent len bytes of msg. */
static void client_sent(int sv[2], const void *msg, size_t len)
{
	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					 0, sv), 0);
	CU_ASSERT_EQUAL(msprof_write_by(sv[0], msg, len, soon(), -1), 0);
}

/* Parameters and then the first len bytes of a START request. */
static void client_started(int sv[2], size_t len)
{
	struct msprof_msg start = { .type = MSPROF_START_REQ };
	struct msprof_params_msg params;
	char msg[sizeof(params) + sizeof(start)];

	msprof_params_pack(&params, "{\"result_dir\": \"/tmp\"}");
	memcpy(msg, &params, sizeof(params));
	memcpy(msg + sizeof(params), &start, sizeof(start));
	client_sent(sv, msg, sizeof(params) + len);
}

static void test_trickle_bounded(void)
{
	struct msprof_params_msg params;
	uint64_t ms;
	int sv[2];

	/* Part of the parameters: the whole message has one deadline. */
	msprof_params_pack(&params, "{\"result_dir\": \"/tmp\"}");
	client_sent(sv, &params, 100);
	ms = serve_ms(-1, sv[1]);
	CU_ASSERT(ms >= 200 && ms < 2000);
	expect_closed(sv[0]);

	/* Half a request: its rest has request_ms from its first byte. */
	client_started(sv, 4);
	ms = serve_ms(-1, sv[1]);
	CU_ASSERT(ms >= 200 && ms < 2000);
	expect_reply(sv[0], MSPROF_PARAMS_RSP, MSPROF_SUCCESS);
	expect_session_end(sv[0], MSPROF_SUCCESS);
}

/*
 * A client in the accept queue of a new *listen_fd, that has sent a byte
 * or, if silent, hung up already (as a task probing for stale sockets).
 */
static void queue_waiter(int *listen_fd, bool silent)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	/* Abstract: nothing to clean up. */
	snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1,
		 "msprof-unit-%d", getpid());
	*listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CU_ASSERT_EQUAL_FATAL(bind(*listen_fd, (struct sockaddr *)&addr,
				   sizeof(addr)), 0);
	CU_ASSERT_EQUAL_FATAL(listen(*listen_fd, 1), 0);
	CU_ASSERT_EQUAL_FATAL(connect(fd, (struct sockaddr *)&addr,
				      sizeof(addr)), 0);
	if (!silent)
		CU_ASSERT_EQUAL(write(fd, "x", 1), 1);
	close(fd);
}

static void test_waiter_gets_in(void)
{
	uint64_t ms;
	int sv[2], lfd;

	queue_waiter(&lfd, false);
	/* Idle outside a window: let go at once. */
	client_started(sv, 0);
	ms = serve_ms(lfd, sv[1]);
	CU_ASSERT(ms < 150);
	expect_reply(sv[0], MSPROF_PARAMS_RSP, MSPROF_SUCCESS);
	expect_session_end(sv[0], MSPROF_SUCCESS);

	/* In a window: yield_ms more, then the window ends. */
	close(lfd);
	queue_waiter(&lfd, false);
	client_started(sv, sizeof(struct msprof_msg));
	ms = serve_ms(lfd, sv[1]);
	CU_ASSERT(ms >= 300 && ms < 2000);
	expect_reply(sv[0], MSPROF_PARAMS_RSP, MSPROF_SUCCESS);
	expect_reply(sv[0], MSPROF_START_RSP, MSPROF_SUCCESS);
	expect_session_end(sv[0], MSPROF_SUCCESS);
	close(lfd);
}

static void *end_later(void *fd)
{
	usleep(400 * 1000);
	shutdown(*(int *)fd, SHUT_WR);
	return NULL;
}

static void test_window_kept(void)
{
	pthread_t tid;
	int sv[2];
	uint64_t ms;

	/* A window with nobody waiting outlives every limit. */
	client_started(sv, sizeof(struct msprof_msg));
	CU_ASSERT_EQUAL_FATAL(pthread_create(&tid, NULL, end_later, &sv[0]), 0);
	ms = serve_ms(-1, sv[1]);
	pthread_join(tid, NULL);
	CU_ASSERT(ms >= 400);
	expect_reply(sv[0], MSPROF_PARAMS_RSP, MSPROF_SUCCESS);
	expect_reply(sv[0], MSPROF_START_RSP, MSPROF_SUCCESS);
	expect_session_end(sv[0], MSPROF_SUCCESS);
}

static void test_probe_ignored(void)
{
	pthread_t tid;
	uint64_t ms;
	int sv[2], lfd;

	/* Idle outside a window: a client that hung up is no waiter. */
	queue_waiter(&lfd, true);
	client_started(sv, 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&tid, NULL, end_later, &sv[0]), 0);
	ms = serve_ms(lfd, sv[1]);
	pthread_join(tid, NULL);
	CU_ASSERT(ms >= 400);
	expect_reply(sv[0], MSPROF_PARAMS_RSP, MSPROF_SUCCESS);
	expect_session_end(sv[0], MSPROF_SUCCESS);
	close(lfd);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "requests get their replies", test_requests },
		{ "the real client's sequence, status unset", test_real_client },
		{ "a type it does not know ends the session", test_bad_type },
		{ "bad parameters are refused", test_bad_params },
		{ "the 101st request ends the session", test_message_limit },
		{ "an idle session is ended", test_idle_timeout },
		{ "a message has one deadline, however it trickles", test_trickle_bounded },
		{ "a waiting client gets in", test_waiter_gets_in },
		{ "a window is kept while nobody waits", test_window_kept },
		{ "a client that hung up waits for nothing", test_probe_ignored },
		CU_TEST_INFO_NULL,
	};

	return add_suite("server", tests);
}

UNIT_SUITE(register_tests)
