// SPDX-License-Identifier: MIT
/* Finding the tasks: NSpid, /proc/locks, and a socket in a task's home. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "task/ctl_lock.h"
#include "proc/procfs.h"
#include "task/taskscan.h"
#include "unit.h"

static void test_nspid_parse(void)
{
	int pid = -7;

	CU_ASSERT_EQUAL(procfs_parse_nspid("\t12\n", &pid), 0);
	CU_ASSERT_EQUAL(pid, 12);
	/* Nested namespaces: the innermost, last. */
	CU_ASSERT_EQUAL(procfs_parse_nspid("\t4000\t310\t3\n", &pid), 0);
	CU_ASSERT_EQUAL(pid, 3);
	CU_ASSERT_EQUAL(procfs_parse_nspid(" 9", &pid), 0);
	CU_ASSERT_EQUAL(pid, 9);
	pid = -7;
	CU_ASSERT_EQUAL(procfs_parse_nspid("", &pid), -EPROTO);
	CU_ASSERT_EQUAL(procfs_parse_nspid("\t\n", &pid), -EPROTO);
	CU_ASSERT_EQUAL(procfs_parse_nspid("\tabc\n", &pid), -EPROTO);
	CU_ASSERT_EQUAL(procfs_parse_nspid("\t12x\n", &pid), -EPROTO);
	CU_ASSERT_EQUAL(procfs_parse_nspid("\t12\t-3\n", &pid), -EPROTO);
	CU_ASSERT_EQUAL(procfs_parse_nspid("\t0\n", &pid), -EPROTO);
	CU_ASSERT_EQUAL(procfs_parse_nspid("\t99999999999\n", &pid), -EPROTO);
	CU_ASSERT_EQUAL(pid, -7);
}

static void test_flock_line(void)
{
	dev_t dev = makedev(0, 0x1a);
	int pid = 0;

	CU_ASSERT_EQUAL(ctl_lock_parse_flock("1: FLOCK  ADVISORY  WRITE 4242 00:1a:1234 0 EOF\n",
					     dev, 1234, &pid), 0);
	CU_ASSERT_EQUAL(pid, 4242);
	pid = 0;
	/* A waiter holds nothing; other kinds, files and garbage are not it. */
	CU_ASSERT_EQUAL(ctl_lock_parse_flock("1: -> FLOCK  ADVISORY  WRITE 4243 00:1a:1234 0 EOF\n",
					     dev, 1234, &pid), -ENOENT);
	CU_ASSERT_EQUAL(ctl_lock_parse_flock("2: POSIX  ADVISORY  WRITE 4242 00:1a:1234 0 EOF\n",
					     dev, 1234, &pid), -ENOENT);
	CU_ASSERT_EQUAL(ctl_lock_parse_flock("3: FLOCK  ADVISORY  WRITE 4242 00:1a:12345 0 EOF\n",
					     dev, 1234, &pid), -ENOENT);
	CU_ASSERT_EQUAL(ctl_lock_parse_flock("4: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF\n",
					     dev, 1234, &pid), -ENOENT);
	CU_ASSERT_EQUAL(ctl_lock_parse_flock("FLOCK 4242 00:1a:1234\n", dev, 1234, &pid),
			-ENOENT);
	CU_ASSERT_EQUAL(ctl_lock_parse_flock("", dev, 1234, &pid), -ENOENT);
	CU_ASSERT_EQUAL(pid, 0);
}

/* A process (sleep) with HOME and RANK_ID; its home made new. */
struct fake_task {
	char home[64];
	char sock[PATH_MAX];
	pid_t pid;
};

static void fake_start(struct fake_task *f)
{
	char *argv[] = { "sleep", "30", NULL };
	char env_home[96], comm[16] = "";
	char *envp[] = { env_home, "RANK_ID=5", NULL };
	int i;

	strcpy(f->home, "/tmp/msprof-unit-home.XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(f->home));
	snprintf(env_home, sizeof(env_home), "HOME=%s", f->home);
	CU_ASSERT_EQUAL_FATAL(posix_spawn(&f->pid, "/bin/sleep", NULL, NULL, argv, envp), 0);
	/* Under ASan the child may not have exec'd yet: its environ is then ours. */
	for (i = 0; i < 200 && strcmp(comm, "sleep"); i++) {
		procfs_comm(f->pid, comm, sizeof(comm));
		usleep(10000);
	}
	CU_ASSERT_STRING_EQUAL(comm, "sleep");
	snprintf(f->sock, sizeof(f->sock), "%s/dynamic_profiling_socket_%d",
		 f->home, (int)f->pid);
}

static void fake_stop(struct fake_task *f)
{
	char path[PATH_MAX];

	kill(f->pid, SIGKILL);
	waitpid(f->pid, NULL, 0);
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

/* /proc/<pid>/stat's field 22, which names a process beyond its pid. */
static void test_start_time(void)
{
	unsigned long long mine = 0, child = 0, again = 0;
	char line[1024], *p;
	unsigned long long want = 0;
	struct fake_task f;
	FILE *fp;
	int i;

	CU_ASSERT_EQUAL(procfs_start_time(getpid(), &mine), 0);
	/*
	 * The main thread's own stat: qemu-user answers a process's reads of
	 * its /proc/self/stat with one of its own making, start time 0.
	 */
	snprintf(line, sizeof(line), "/proc/self/task/%d/stat", getpid());
	fp = fopen(line, "re");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof(line), fp));
	fclose(fp);
	p = strrchr(line, ')');
	for (i = 0; p && i < 20; i++)	/* past the state, to field 22 */
		p = strchr(p + 1, ' ');
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	want = strtoull(p + 1, NULL, 10);
	CU_ASSERT_EQUAL(mine, want);
	fake_start(&f);
	CU_ASSERT_EQUAL(procfs_start_time(f.pid, &child), 0);
	CU_ASSERT(child >= mine);
	CU_ASSERT_EQUAL(procfs_start_time(f.pid, &again), 0);
	CU_ASSERT_EQUAL(again, child);
	fake_stop(&f);
	CU_ASSERT_EQUAL(procfs_start_time(f.pid, &again), -ESRCH);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "NSpid: the innermost pid, digits only", test_nspid_parse },
		{ "/proc/locks: a held flock on the lock file only", test_flock_line },
		{ "start time: field 22 of stat, -ESRCH once gone", test_start_time },
		CU_TEST_INFO_NULL,
	};
	static const CU_TestInfo scan_tests[] = {
		{ "a socket in the task's home, nothing planted in its name", test_scan_socket },
		{ "a scan out of time says how many it left", test_scan_budget },
		CU_TEST_INFO_NULL,
	};
	static const CU_TestInfo none[] = { CU_TEST_INFO_NULL };
	static const CU_TestInfo root_tests[] = {
		{ "a controller's lock named, not taken", test_scan_held },
		CU_TEST_INFO_NULL,
	};
	const char *why = unit_no_openat2();

	if (add_suite_needing("tasklist", tests, scan_tests, why, skipped))
		return -1;
	if (!why && geteuid())
		why = "/run/msprof needs root";
	return add_suite_needing("tasklist, as root", none, root_tests, why, skipped);
}

UNIT_SUITE(register_tests)
