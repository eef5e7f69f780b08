// SPDX-License-Identifier: MIT
/* What a PROF_ directory says of the task: its rank, from its environment. */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procfs.h"
#include "unit.h"

/* An environ block in a memfd, read from its start. */
static int environ_fd(const char *block, size_t len)
{
	int fd = memfd_create("environ", MFD_CLOEXEC);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, block, len), (ssize_t)len);
	CU_ASSERT_EQUAL(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static int lookup(const char *block, size_t len, const char *name, char *out,
		  size_t outlen)
{
	int fd = environ_fd(block, len), err;

	err = procfs_getenv_fd(fd, name, out, outlen);
	close(fd);
	return err;
}

#define BLOCK(s) s, sizeof(s) - 1

static void test_getenv_fd(void)
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

static void test_rank_parse(void)
{
	CU_ASSERT_EQUAL(procfs_rank_parse("0"), 0);
	CU_ASSERT_EQUAL(procfs_rank_parse("17"), 17);
	CU_ASSERT_EQUAL(procfs_rank_parse("999999999"), 999999999);
	CU_ASSERT_EQUAL(procfs_rank_parse("abc"), -1);
	CU_ASSERT_EQUAL(procfs_rank_parse(""), -1);
	CU_ASSERT_EQUAL(procfs_rank_parse("-3"), -1);
	CU_ASSERT_EQUAL(procfs_rank_parse("3 "), -1);
	CU_ASSERT_EQUAL(procfs_rank_parse("1234567890"), -1);
}

/* The rank of a real process, as its /proc/<pid>/environ says. */
static int rank_of(char *const envp[])
{
	char *argv[] = { "sleep", "30", NULL };
	char comm[16] = "";
	pid_t pid;
	int rank, i;

	CU_ASSERT_EQUAL_FATAL(posix_spawn(&pid, "/bin/sleep", NULL, NULL, argv, envp), 0);
	/* Under ASan the child may not have exec'd yet: its environ is then ours. */
	for (i = 0; i < 200 && strcmp(comm, "sleep"); i++) {
		procfs_comm(pid, comm, sizeof(comm));
		usleep(10000);
	}
	CU_ASSERT_STRING_EQUAL(comm, "sleep");
	rank = procfs_rank_id(pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
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

int register_layout_tests(void)
{
	static const CU_TestInfo tests[] = {
		{ "environ: whole names, no NUL at the end, too long", test_getenv_fd },
		{ "environ: huge and without NULs, read within a bound", test_getenv_huge },
		{ "rank ids: digits only", test_rank_parse },
		{ "rank id: RANK_ID, else RANK, else -1", test_rank_id },
		CU_TEST_INFO_NULL,
	};

	return add_suite("layout", tests);
}
