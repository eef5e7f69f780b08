// SPDX-License-Identifier: MIT
/* The scan behind --list and --job: a row per task with an agent's socket. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "task/ctl_lock.h"
#include "proc/procfs.h"
#include "task/taskscan.h"
#include "unit.h"

/* A process (sleep) with HOME and RANK_ID; its home made new. */
struct fake_task {
	char home[64];
	char sock[PATH_MAX];
	pid_t pid;
};

static void fake_start(struct fake_task *f)
{
	char env_home[96];
	char *envp[] = { env_home, "RANK_ID=5", NULL };

	strcpy(f->home, "/tmp/msprof-unit-home.XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(f->home));
	snprintf(env_home, sizeof(env_home), "HOME=%s", f->home);
	f->pid = unit_spawn_sleep(envp);
	snprintf(f->sock, sizeof(f->sock), "%s/dynamic_profiling_socket_%d",
		 f->home, (int)f->pid);
}

static void fake_stop(struct fake_task *f)
{
	char path[PATH_MAX];

	unit_reap(f->pid);
	unlink(f->sock);
	snprintf(path, sizeof(path), "%s/elsewhere", f->home);
	unlink(path);
	rmdir(f->home);
}

/* A socket file at path, as an agent's bind leaves it. */
static void make_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	CU_ASSERT_FATAL(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	CU_ASSERT_EQUAL(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
}

static int keep_row(const struct task_row *r, void *ctx)
{
	struct task_row *rows = ctx;

	/* rows[0].host_pid counts them; the first is kept in rows[1]. */
	if (!rows[0].host_pid++)
		rows[1] = *r;
	return 0;
}

/*
 * The rows taskscan_each() gives for pid taken as started at start; the
 * first in *row.
 */
static int rows_since(pid_t pid, unsigned long long start, struct task_row *row)
{
	struct task_row rows[2] = { 0 };
	size_t left;

	CU_ASSERT_EQUAL(taskscan_each(pid, start, TASKSCAN_BUDGET_MS, keep_row,
				      rows, &left), 0);
	CU_ASSERT_EQUAL(left, 0);
	*row = rows[1];
	return rows[0].host_pid;
}

/* The same for pid as it is now (0 if gone). */
static int rows_for(pid_t pid, struct task_row *row)
{
	unsigned long long start;

	return rows_since(pid, procfs_start_time(pid, &start) ? 0 : start, row);
}

static void test_scan_socket(void)
{
	unsigned long long start;
	struct task_row row;
	struct fake_task f;
	char other[PATH_MAX];

	fake_start(&f);
	CU_ASSERT_EQUAL(rows_for(f.pid, &row), 0);
	make_socket(f.sock);
	CU_ASSERT_EQUAL(rows_for(f.pid, &row), 1);
	CU_ASSERT_EQUAL(row.host_pid, f.pid);
	CU_ASSERT_EQUAL(row.ns_pid, f.pid);
	CU_ASSERT_EQUAL(row.uid, geteuid());
	CU_ASSERT_STRING_EQUAL(row.comm, "sleep");
	CU_ASSERT_EQUAL(row.rank_id, 5);
	/* A root that started at another time: its pid names another process. */
	CU_ASSERT_EQUAL_FATAL(procfs_start_time(f.pid, &start), 0);
	CU_ASSERT_EQUAL(rows_since(f.pid, start + 1, &row), 0);
	/* What is planted under the socket's name is not a socket. */
	unlink(f.sock);
	CU_ASSERT_EQUAL(mkfifo(f.sock, 0600), 0);
	CU_ASSERT_EQUAL(rows_for(f.pid, &row), 0);
	unlink(f.sock);
	snprintf(other, sizeof(other), "%s/elsewhere", f.home);
	make_socket(other);
	CU_ASSERT_EQUAL(symlink(other, f.sock), 0);
	CU_ASSERT_EQUAL(rows_for(f.pid, &row), 0);
	unlink(f.sock);
	CU_ASSERT_EQUAL(mkdir(f.sock, 0700), 0);
	CU_ASSERT_EQUAL(rows_for(f.pid, &row), 0);
	rmdir(f.sock);
	fake_stop(&f);
	/* Gone: no row, no error. */
	CU_ASSERT_EQUAL(rows_for(f.pid, &row), 0);
}

/* Out of time: the scan ends, saying how many processes it did not see. */
static void test_scan_budget(void)
{
	struct task_row rows[2] = { 0 };
	size_t left = 0;

	CU_ASSERT_EQUAL(taskscan_each(0, 0, 0, keep_row, rows, &left), -ETIME);
	CU_ASSERT_EQUAL(rows[0].host_pid, 0);
	/* At least this process and its parent. */
	CU_ASSERT(left >= 2);
}

/* Held, by us: said with our pid, and left held. */
static void test_scan_held(void)
{
	struct ctl_lock l;
	struct task_row row;
	struct fake_task f;
	int holder;

	fake_start(&f);
	make_socket(f.sock);
	CU_ASSERT_EQUAL(rows_for(f.pid, &row), 1);
	CU_ASSERT_EQUAL(row.held, 0);
	CU_ASSERT_EQUAL_FATAL(ctl_lock(&l, f.pid, f.pid, &holder), 0);
	CU_ASSERT_EQUAL(rows_for(f.pid, &row), 1);
	CU_ASSERT_EQUAL(row.held, 1);
	CU_ASSERT_EQUAL(row.holder, getpid());
	/* Still ours: listing locked nothing, even for a moment. */
	CU_ASSERT_EQUAL(ctl_lock_holder(f.pid, f.pid, &holder), 1);
	ctl_unlock(&l);
	CU_ASSERT_EQUAL(rows_for(f.pid, &row), 1);
	CU_ASSERT_EQUAL(row.held, 0);
	fake_stop(&f);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo none[] = { CU_TEST_INFO_NULL };
	static const CU_TestInfo tests[] = {
		{ "a socket in the task's home, nothing planted in its name", test_scan_socket },
		{ "a scan out of time says how many it left", test_scan_budget },
		CU_TEST_INFO_NULL,
	};
	static const CU_TestInfo root_tests[] = {
		{ "a controller's lock named, not taken", test_scan_held },
		CU_TEST_INFO_NULL,
	};
	const char *why = unit_no_openat2();

	if (add_suite_needing("taskscan", none, tests, why, skipped))
		return -1;
	if (!why && geteuid())
		why = "/run/msprof needs root";
	return add_suite_needing("taskscan, as root", none, root_tests, why, skipped);
}

UNIT_SUITE(register_tests)
