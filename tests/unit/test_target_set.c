// SPDX-License-Identifier: MIT
/*
 * The start/stop state machine's decisions, on the set of targets: which
 * targets' windows begin, what a target that fails does to the start,
 * what the stop writes when an agent is gone, and that reading the ring
 * buffer adopts nothing.  The kernel's side is a stand-in
 * (window_host_ops); the windows are real directories under /tmp, the
 * agents real sockets.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl/target_set.h"
#include "msprof/protocol.h"
#include "task/profdir.h"
#include "unit.h"

/* What the stand-in for the tracer was asked, and is to answer. */
static struct {
	int fail_pid;		/* arming this pid fails */
	int armed;
	int unfiltered;
	int consumed;
	int fork_pid;		/* the next read stops at its fork record */
} host;

static struct window_ctx w;
static struct target_set ts;
static char base[64];

static int fake_arm(struct tracer *t, int pid, const struct probe_set *ps,
		    struct tracer_armed *a)
{
	(void)t;
	(void)ps;
	memset(a, 0, sizeof(*a));
	host.armed++;
	if (pid != host.fail_pid)
		return 0;
	return -EPERM;
}

static int fake_devices(struct tracer *t, int pid)
{
	(void)t;
	(void)pid;
	return 0;
}

static int fake_filter(struct tracer *t, int pid)
{
	(void)t;
	(void)pid;
	return 0;
}

static int fake_unfilter(struct tracer *t, int pid)
{
	(void)t;
	(void)pid;
	host.unfiltered++;
	return 0;
}

static int fake_lost(struct tracer *t, int pid, uint64_t *lost)
{
	(void)t;
	(void)pid;
	*lost = 0;
	return 0;
}

static int fake_consume(struct tracer *t)
{
	(void)t;
	host.consumed++;
	if (!host.fork_pid)
		return 0;
	w.collector.forked = host.fork_pid;
	host.fork_pid = 0;
	return COLLECTOR_PAUSE;
}

static const struct window_host_ops fake_ops = {
	.devices = fake_devices, .arm = fake_arm, .filter = fake_filter, .unfilter = fake_unfilter,
	.lost = fake_lost, .consume = fake_consume,
};

/* A session's windows in a fresh output directory, no target yet. */
static void open_set(void)
{
	memset(&host, 0, sizeof(host));
	memset(&w, 0, sizeof(w));
	w.host = &fake_ops;
	w.number = 1;
	w.link.stage_budget = &w.stage_budget;
	clock_pair_now(&w.start);
	snprintf(base, sizeof(base), "/tmp/msprof-unit-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(base));
	snprintf(w.link.output, sizeof(w.link.output), "%s", base);
	w.link.out_fd = open(base, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(w.link.out_fd >= 0);
	CU_ASSERT_EQUAL_FATAL(target_set_init(&ts, &w), 0);
}

static void close_set(void)
{
	char cmd[128];

	target_set_free(&ts);
	close(w.link.out_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* A pid no process has: a child that was reaped. */
static int gone_pid(void)
{
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	CU_ASSERT_FATAL(pid > 0);
	waitpid(pid, NULL, 0);
	return pid;
}

/*
 * A target as target_set_take() leaves it, without the lock or a socket:
 * this process, seen as pid (no agent: it runs none).
 */
static struct target *add_target(int pid)
{
	struct target *t = &ts.v[ts.n++];

	target_init(t, getpid());
	t->lock.fd = -1;
	t->host_pid = pid;
	return t;
}

/* How many PROF_ directories the output holds. */
static int windows_on_disk(void)
{
	DIR *d = opendir(base);
	struct dirent *e;
	int n = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, "PROF_", 5);
	closedir(d);
	return n;
}

static void test_exited_skipped(void)
{
	struct window_losses wl[3] = { { 0 } };
	struct target *a, *b, *c;

	open_set();
	a = add_target(getpid());
	b = add_target(getpid());
	c = add_target(getpid());
	b->exited = true;
	CU_ASSERT_EQUAL(target_set_begin_windows(&ts), 0);
	CU_ASSERT_EQUAL(host.armed, 2);
	CU_ASSERT_NOT_EQUAL(*a->dir, '\0');
	CU_ASSERT_EQUAL(*b->dir, '\0');
	CU_ASSERT_NOT_EQUAL(*c->dir, '\0');
	CU_ASSERT_EQUAL(windows_on_disk(), 2);
	/* The stop writes both and forgets the one that exited. */
	CU_ASSERT_EQUAL(target_set_end_windows(&ts, wl), 0);
	CU_ASSERT_EQUAL(ts.n, 2);
	CU_ASSERT_EQUAL(host.unfiltered, 1);
	CU_ASSERT_EQUAL(windows_on_disk(), 2);
	close_set();
}

static void test_gone_forgotten(void)
{
	struct target *a;

	open_set();
	a = add_target(getpid());
	host.fail_pid = gone_pid();
	add_target(host.fail_pid);
	/* One that is gone is no failure: it goes, the start goes on. */
	CU_ASSERT_EQUAL(target_set_begin_windows(&ts), 0);
	CU_ASSERT_EQUAL(ts.n, 1);
	CU_ASSERT_EQUAL(ts.v[0].host_pid, getpid());
	CU_ASSERT_EQUAL(host.unfiltered, 1);
	CU_ASSERT_NOT_EQUAL(*a->dir, '\0');
	CU_ASSERT_EQUAL(windows_on_disk(), 1);
	target_set_abort_windows(&ts);
	close_set();
}

static void test_failure_aborts(void)
{
	struct target *a, *b, *c;

	open_set();
	a = add_target(getpid());
	b = add_target(1);	/* alive: its failure is the start's */
	c = add_target(getpid());
	host.fail_pid = 1;
	CU_ASSERT_EQUAL(target_set_begin_windows(&ts), -EPERM);
	/* b's own window is gone already; c's was not begun. */
	CU_ASSERT_EQUAL(ts.n, 3);
	CU_ASSERT_EQUAL(host.armed, 2);
	CU_ASSERT_NOT_EQUAL(*a->dir, '\0');
	CU_ASSERT_EQUAL(*b->dir, '\0');
	CU_ASSERT_EQUAL(*c->dir, '\0');
	CU_ASSERT_EQUAL(windows_on_disk(), 1);
	/* The start aborts: nothing is left of the window. */
	target_set_abort_windows(&ts);
	CU_ASSERT_EQUAL(*a->dir, '\0');
	CU_ASSERT_EQUAL(a->dir_fd, -1);
	CU_ASSERT_EQUAL(windows_on_disk(), 0);
	close_set();
}

/* The device status the stop wrote into the one window of the output. */
static void stopped_status(char *text, size_t len)
{
	DIR *d = opendir(base);
	struct dirent *e;
	char path[300];

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	while ((e = readdir(d)) && strncmp(e->d_name, "PROF_", 5))
		;
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	snprintf(path, sizeof(path), "%s/%s", e->d_name, PROFDIR_FACTS);
	closedir(d);
	unit_read_text(w.link.out_fd, path, text, len);
}

static void test_stop_without_agent(void)
{
	struct window_losses wl[1] = { { 0 } };
	char text[4096];

	open_set();
	add_target(getpid());
	CU_ASSERT_EQUAL(target_set_begin_windows(&ts), 0);
	/* No agent was ever connected: the stop says so. */
	CU_ASSERT_EQUAL(target_set_request(&ts, MSPROF_STOP_REQ), 0);
	CU_ASSERT_EQUAL(ts.v[0].device_status, -ENOTCONN);
	CU_ASSERT_EQUAL(target_set_end_windows(&ts, wl), 0);
	stopped_status(text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"device_status\": \"not connected: the process has no profiling agent\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"state\": \"complete\""));
	close_set();
}

static void test_stop_agent_gone(void)
{
	struct window_losses wl[1] = { { 0 } };
	void (*was)(int) = signal(SIGPIPE, SIG_IGN);
	struct target *t;
	char text[4096];
	int sv[2];

	open_set();
	t = add_target(getpid());
	CU_ASSERT_EQUAL(target_set_begin_windows(&ts), 0);
	/* Its agent went in the window: the STOP finds the peer closed. */
	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	close(sv[1]);
	t->fd = sv[0];
	CU_ASSERT_NOT_EQUAL(target_set_request(&ts, MSPROF_STOP_REQ), 0);
	CU_ASSERT_EQUAL(t->fd, -1);
	CU_ASSERT(t->device_status < 0);
	CU_ASSERT_EQUAL(target_set_end_windows(&ts, wl), 0);
	stopped_status(text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"device_status\": \"not connected: "));
	close_set();
	signal(SIGPIPE, was);
}

static void test_read_adopts_nothing(void)
{
	open_set();
	add_target(getpid());
	host.fork_pid = gone_pid();
	/* Reading stops at the fork record, and reads no further. */
	CU_ASSERT_EQUAL(target_set_read(&ts), 1);
	CU_ASSERT_EQUAL(target_set_read(&ts), 1);
	CU_ASSERT_EQUAL(host.consumed, 1);
	CU_ASSERT_EQUAL(ts.n, 1);
	CU_ASSERT_EQUAL(host.unfiltered, 0);
	/* Following it: a helper already gone leaves nothing but its filter. */
	target_set_follow(&ts);
	CU_ASSERT_EQUAL(w.collector.forked, 0);
	CU_ASSERT_EQUAL(ts.n, 1);
	CU_ASSERT_EQUAL(host.unfiltered, 1);
	CU_ASSERT_EQUAL(target_set_read(&ts), 0);
	CU_ASSERT_EQUAL(host.consumed, 2);
	close_set();
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "reading stops at a fork and adopts nothing", test_read_adopts_nothing },
		CU_TEST_INFO_NULL,
	};
	/* Files in a window are made with openat2(). */
	static const CU_TestInfo openat2_tests[] = {
		{ "a start begins every target's window but the exited", test_exited_skipped },
		{ "a target gone at the start is forgotten", test_gone_forgotten },
		{ "a target that fails ends the start; the abort leaves nothing", test_failure_aborts },
		{ "stop with no agent: not connected", test_stop_without_agent },
		{ "stop with the agent gone: its reason", test_stop_agent_gone },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("target_set", tests, openat2_tests,
				 unit_no_openat2(), skipped);
}

UNIT_SUITE(register_tests)
