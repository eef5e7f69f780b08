// SPDX-License-Identifier: MIT
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "msprof/protocol.h"
#include "task/dynsock.h"
#include "unit.h"

/* The agent's end of a socketpair has sent len bytes of reply. */
static int agent_said(int *agent, const void *reply, size_t len)
{
	int sv[2];

	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					 0, sv), 0);
	CU_ASSERT_EQUAL(write(sv[1], reply, len), (ssize_t)len);
	*agent = sv[1];
	return sv[0];
}

static void test_ctl_replies(void)
{
	struct msprof_msg ok = { MSPROF_START_RSP, MSPROF_NOT_SET_DEVICE };
	/* A server ending the session: DISCONNECT, then its QUIT. */
	struct msprof_msg bye[] = {
		{ MSPROF_DISCONNECT_RSP, MSPROF_SUCCESS },
		{ MSPROF_QUIT_RSP, MSPROF_SUCCESS },
	};
	int fd, agent, status = -1;

	fd = agent_said(&agent, &ok, sizeof(ok));
	CU_ASSERT_EQUAL(dynsock_request(fd, MSPROF_START_REQ, &status), 0);
	CU_ASSERT_EQUAL(status, MSPROF_NOT_SET_DEVICE);
	/* The wrong answer, then the agent gone. */
	CU_ASSERT_EQUAL(write(agent, &ok, sizeof(ok)), (ssize_t)sizeof(ok));
	CU_ASSERT_EQUAL(dynsock_request(fd, MSPROF_STOP_REQ, &status), -EPROTO);
	close(agent);
	CU_ASSERT_EQUAL(dynsock_request(fd, MSPROF_STOP_REQ, &status),
			-ECONNRESET);
	close(fd);

	fd = agent_said(&agent, bye, sizeof(bye));
	CU_ASSERT_EQUAL(dynsock_send_params(fd, "{}"), -ESHUTDOWN);
	close(fd);
	close(agent);
}

/* Nothing is left to read on fd. */
static int drained(int fd)
{
	char c;

	return recv(fd, &c, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN;
}

/* A real server's three messages after QUIT are all read. */
static void test_ctl_quit_drained(void)
{
	struct msprof_msg three[] = {
		{ MSPROF_QUIT_RSP, MSPROF_SUCCESS },
		{ MSPROF_DISCONNECT_RSP, MSPROF_SUCCESS },
		{ MSPROF_QUIT_RSP, MSPROF_SUCCESS },
	};
	int fd, agent, status = -1;
	uint64_t t0;

	fd = agent_said(&agent, three, sizeof(three));
	t0 = msprof_now_ms();
	CU_ASSERT_EQUAL(dynsock_request(fd, MSPROF_QUIT_REQ, &status), 0);
	CU_ASSERT_EQUAL(status, MSPROF_SUCCESS);
	CU_ASSERT(msprof_now_ms() - t0 < DYNSOCK_DRAIN_MS);
	CU_ASSERT(drained(fd));
	close(fd);
	close(agent);

	/* One that closes after its answer costs no wait either. */
	fd = agent_said(&agent, three, sizeof(three[0]));
	shutdown(agent, SHUT_WR);
	t0 = msprof_now_ms();
	CU_ASSERT_EQUAL(dynsock_request(fd, MSPROF_QUIT_REQ, &status), 0);
	CU_ASSERT(msprof_now_ms() - t0 < DYNSOCK_DRAIN_MS);
	close(fd);
	close(agent);

	/* One that says no more and keeps the connection: a bounded wait. */
	fd = agent_said(&agent, three, sizeof(three[0]));
	t0 = msprof_now_ms();
	CU_ASSERT_EQUAL(dynsock_request(fd, MSPROF_QUIT_REQ, &status), 0);
	CU_ASSERT(msprof_now_ms() - t0 < 2 * DYNSOCK_DRAIN_MS);
	close(fd);
	close(agent);
}

/* The server ends the session on its own: after a reply, or instead. */
static void test_ctl_session_end(void)
{
	struct msprof_msg after[] = {
		{ MSPROF_START_RSP, MSPROF_SUCCESS },
		{ MSPROF_DISCONNECT_RSP, MSPROF_SUCCESS },
		{ MSPROF_QUIT_RSP, MSPROF_FAIL },
	};
	struct msprof_msg odd = { MSPROF_START_RSP, MSPROF_SUCCESS };
	int fd, agent, status = -1;

	fd = agent_said(&agent, after, sizeof(after));
	CU_ASSERT_EQUAL(dynsock_request(fd, MSPROF_START_REQ, &status), 0);
	CU_ASSERT_EQUAL(status, MSPROF_SUCCESS);
	CU_ASSERT_EQUAL(dynsock_check_ended(fd, &status), -ESHUTDOWN);
	CU_ASSERT_EQUAL(status, MSPROF_FAIL);
	CU_ASSERT(drained(fd));
	CU_ASSERT_EQUAL(dynsock_check_ended(fd, &status), 0);
	close(agent);
	CU_ASSERT_EQUAL(dynsock_check_ended(fd, &status), -ECONNRESET);
	close(fd);

	/* Instead of the reply: the session had ended before the request. */
	fd = agent_said(&agent, after + 1, 2 * sizeof(after[0]));
	CU_ASSERT_EQUAL(dynsock_request(fd, MSPROF_STOP_REQ, &status), -ESHUTDOWN);
	CU_ASSERT_EQUAL(status, MSPROF_FAIL);
	CU_ASSERT(drained(fd));
	close(fd);
	close(agent);

	fd = agent_said(&agent, &odd, sizeof(odd));
	CU_ASSERT_EQUAL(dynsock_check_ended(fd, &status), -EPROTO);
	close(fd);
	close(agent);
}

/* msprof blocks its signals and reads them later: one ends any wait. */
static void test_ctl_signal(void)
{
	struct timespec none = { 0 };
	sigset_t usr1, old;
	int fd, agent, status;
	uint64_t t0;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, &old);
	raise(SIGUSR1);
	fd = agent_said(&agent, NULL, 0);
	t0 = msprof_now_ms();
	CU_ASSERT_EQUAL(dynsock_request(fd, MSPROF_STOP_REQ, &status), -EINTR);
	CU_ASSERT(msprof_now_ms() - t0 < 1000);
	/* Left pending for the event loop. */
	CU_ASSERT_EQUAL(sigtimedwait(&usr1, NULL, &none), SIGUSR1);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(fd);
	close(agent);
}

/* An agent that answers each request SLOW_MS after it came. */
#define SLOW_MS 300

static void *slow_agent(void *arg)
{
	struct msprof_msg req, rsp = { .status = MSPROF_SUCCESS };
	struct timespec wait = { .tv_nsec = SLOW_MS * 1000000L };
	int fd = *(int *)arg;

	if (read(fd, &req, sizeof(req)) == sizeof(req)) {
		nanosleep(&wait, NULL);
		rsp.type = req.type + 1;
		if (write(fd, &rsp, sizeof(rsp)) != sizeof(rsp))
			return NULL;
	}
	return NULL;
}

/*
 * Every agent is asked before any answer is awaited: two slow ones cost
 * one wait, not two; one gone or wrong costs the others nothing.
 */
static void test_ctl_request_all(void)
{
	struct msprof_msg ok = { MSPROF_STOP_RSP, MSPROF_SUCCESS }, req;
	int fds[4], agents[4], status[4] = { -1, -1, -1, -1 }, err[4], sv[2];
	int big[DYNSOCK_BATCH + 1] = { 0 };
	pthread_t th[2];
	uint64_t t0;
	int i;

	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
						 0, sv), 0);
		fds[i] = sv[0];
		agents[i] = sv[1];
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, slow_agent,
						     &agents[i]), 0);
	}
	fds[2] = agent_said(&agents[2], &ok, sizeof(ok));
	fds[3] = agent_said(&agents[3], NULL, 0);
	close(agents[3]);
	t0 = msprof_now_ms();
	dynsock_request_all(fds, 4, MSPROF_STOP_REQ, status, err);
	CU_ASSERT(msprof_now_ms() - t0 < 2 * SLOW_MS - 50);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(err[i], 0);
		CU_ASSERT_EQUAL(status[i], MSPROF_SUCCESS);
	}
	CU_ASSERT_EQUAL(err[3], -ECONNRESET);
	/* Each was sent the request itself. */
	CU_ASSERT_EQUAL(read(agents[2], &req, sizeof(req)), (ssize_t)sizeof(req));
	CU_ASSERT_EQUAL(req.type, MSPROF_STOP_REQ);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < 4; i++) {
		close(fds[i]);
		if (i < 3)
			close(agents[i]);
	}

	/* More than a batch is refused whole, before anything is sent. */
	dynsock_request_all(fds, DYNSOCK_BATCH + 1, MSPROF_STOP_REQ, status, big);
	CU_ASSERT_EQUAL(big[0], -E2BIG);
	CU_ASSERT_EQUAL(big[DYNSOCK_BATCH], -E2BIG);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "controller: replies checked", test_ctl_replies },
		{ "controller: the replies after QUIT are read", test_ctl_quit_drained },
		{ "controller: a session the server ends", test_ctl_session_end },
		{ "controller: a signal ends a wait", test_ctl_signal },
		{ "controller: all agents asked at once", test_ctl_request_all },
		CU_TEST_INFO_NULL,
	};

	return add_suite("dynsock", tests);
}

UNIT_SUITE(register_tests)
