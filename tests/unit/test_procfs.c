// SPDX-License-Identifier: MIT
/* What /proc says of a task: its pid in its namespace, start, environment. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "proc/procfs.h"
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

/* /proc/<pid>/stat's field 22, which names a process beyond its pid. */
static void test_start_time(void)
{
	unsigned long long mine = 0, child = 0, again = 0;
	char line[1024], *p;
	unsigned long long want = 0;
	pid_t pid;
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
	pid = unit_spawn_sleep(NULL);
	CU_ASSERT_EQUAL(procfs_start_time(pid, &child), 0);
	CU_ASSERT(child >= mine);
	CU_ASSERT_EQUAL(procfs_start_time(pid, &again), 0);
	CU_ASSERT_EQUAL(again, child);
	unit_reap(pid);
	CU_ASSERT_EQUAL(procfs_start_time(pid, &again), -ESRCH);
}

/* An environ block in a memfd, read from its start. */
static int environ_fd(const char *block, size_t len)
{
	int fd = memfd_create("environ", MFD_CLOEXEC);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, block, len), (ssize_t)len);
	CU_ASSERT_EQUAL(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/* name in the environ block open at fd, read by the reader through its path. */
static int getenv_fd(int fd, const char *name, char *out, size_t outlen)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)getpid(), fd);
	return procfs_getenv_at(path, name, out, outlen);
}

static int lookup(const char *block, size_t len, const char *name, char *out,
		  size_t outlen)
{
	int fd = environ_fd(block, len), err;

	err = getenv_fd(fd, name, out, outlen);
	close(fd);
	return err;
}

#define BLOCK(s) s, sizeof(s) - 1

static void test_getenv_names(void)
{
	char val[16];

	/* Only the whole name counts; the first of two wins. */
	CU_ASSERT_EQUAL(lookup(BLOCK("XRANK_ID=1\0RANK_IDX=2\0RANK_ID\0RANK_ID=5\0RANK_ID=6\0"),
			       "RANK_ID", val, sizeof(val)), 0);
	CU_ASSERT_STRING_EQUAL(val, "5");
	CU_ASSERT_EQUAL(lookup(BLOCK("A=1\0B=2\0"), "RANK_ID", val, sizeof(val)), -ENOENT);
	CU_ASSERT_EQUAL(lookup(BLOCK(""), "RANK_ID", val, sizeof(val)), -ENOENT);
	/* The last entry without its NUL (a task that rewrote it). */
	CU_ASSERT_EQUAL(lookup(BLOCK("A=1\0RANK_ID=12"), "RANK_ID", val, sizeof(val)), 0);
	CU_ASSERT_STRING_EQUAL(val, "12");
	CU_ASSERT_EQUAL(lookup(BLOCK("RANK_ID="), "RANK_ID", val, sizeof(val)), 0);
	CU_ASSERT_STRING_EQUAL(val, "");
	/* A value longer than the caller's room. */
	CU_ASSERT_EQUAL(lookup(BLOCK("RANK_ID=12345678901234567890\0"), "RANK_ID", val,
			       sizeof(val)), -ENAMETOOLONG);
}

/* A block bigger than any execve() takes, with no NUL: bounded, not read whole. */
/*
 * A read that never returns (environ pages backed by a FUSE file whose
 * daemon does not answer; here a pipe nobody writes) ends at the deadline.
 */
static void test_getenv_stalled(void)
{
	struct timespec a, b;
	char val[16];
	int p[2];

	CU_ASSERT_EQUAL_FATAL(pipe2(p, O_CLOEXEC), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	CU_ASSERT_EQUAL(getenv_fd(p[0], "RANK_ID", val, sizeof(val)), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &b);
	CU_ASSERT(b.tv_sec - a.tv_sec < 10);
	close(p[0]);
	close(p[1]);
}

static void test_getenv_huge(void)
{
	size_t len = (size_t)12 << 20;
	char *block = malloc(len), val[16];

	CU_ASSERT_PTR_NOT_NULL_FATAL(block);
	memset(block, 'A', len);
	CU_ASSERT_EQUAL(lookup(block, len, "RANK_ID", val, sizeof(val)), -E2BIG);
	/* One huge entry, then the name: found while within the bound. */
	block[(size_t)1 << 20] = '\0';
	memcpy(block + ((size_t)1 << 20) + 1, "RANK_ID=3", 10);
	CU_ASSERT_EQUAL(lookup(block, ((size_t)1 << 20) + 11, "RANK_ID", val, sizeof(val)), 0);
	CU_ASSERT_STRING_EQUAL(val, "3");
	/* A name matching the start of a huge entry costs nothing either. */
	memcpy(block, "RANK_ID=", 8);
	CU_ASSERT_EQUAL(lookup(block, (size_t)1 << 20, "RANK_ID", val, sizeof(val)),
			-ENAMETOOLONG);
	free(block);
}

/* The rank of a real process, as its /proc/<pid>/environ says. */
static int rank_of(char *const envp[])
{
	pid_t pid = unit_spawn_sleep(envp);
	int rank = procfs_rank_id(pid);

	unit_reap(pid);
	return rank;
}

static void test_rank_id(void)
{
	char *with_id[] = { "RANK=4", "RANK_ID=7", NULL };
	char *bad_id[] = { "RANK_ID=abc", "RANK=4", NULL };
	char *bad_both[] = { "RANK_ID=abc", "RANK=x1", NULL };
	char *none[] = { "PATH=/bin", NULL };

	CU_ASSERT_EQUAL(rank_of(with_id), 7);
	CU_ASSERT_EQUAL(rank_of(bad_id), 4);
	CU_ASSERT_EQUAL(rank_of(bad_both), -1);
	CU_ASSERT_EQUAL(rank_of(none), -1);
	/* No such process: no rank, no error. */
	CU_ASSERT_EQUAL(procfs_rank_id(0x3fffffff), -1);
}


static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "NSpid: the innermost pid, digits only", test_nspid_parse },
		{ "start time: field 22 of stat, -ESRCH once gone", test_start_time },
		{ "environ: whole names, no NUL at the end, too long", test_getenv_names },
		{ "environ: huge and without NULs, read within a bound", test_getenv_huge },
		{ "environ: a read that stalls ends at a deadline", test_getenv_stalled },
		{ "rank id: RANK_ID, else RANK, else -1", test_rank_id },
		CU_TEST_INFO_NULL,
	};

	(void)skipped;
	return add_suite("procfs", tests);
}

UNIT_SUITE(register_tests)
