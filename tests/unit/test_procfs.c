// SPDX-License-Identifier: MIT
/* What /proc says of a task: the environment, read by the reader within bounds. */
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

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "environ: whole names, no NUL at the end, too long", test_getenv_names },
		{ "environ: huge and without NULs, read within a bound", test_getenv_huge },
		{ "environ: a read that stalls ends at a deadline", test_getenv_stalled },
		CU_TEST_INFO_NULL,
	};

	(void)skipped;
	return add_suite("procfs", tests);
}

UNIT_SUITE(register_tests)
