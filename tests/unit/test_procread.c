// SPDX-License-Identifier: MIT
/* msprof's reader: answers, descriptors both ways, deadlines, what it holds. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc/procread.h"
#include "unit.h"

static int echo(const void *arg, int in_fd, char *out, size_t cap, size_t *len,
		int *fd)
{
	size_t n = strlen(arg);

	(void)in_fd;
	(void)fd;
	if (n > cap)
		return -E2BIG;
	memcpy(out, arg, n);
	*len = n;
	return 0;
}

/* The reader's pid, as an answer. */
static int whoami(const void *arg, int in_fd, char *out, size_t cap,
		  size_t *len, int *fd)
{
	pid_t pid = getpid();

	(void)arg;
	(void)in_fd;
	(void)fd;
	if (cap < sizeof(pid))
		return -EINVAL;
	memcpy(out, &pid, sizeof(pid));
	*len = sizeof(pid);
	return 0;
}

/* Fails; with arg "stall", never returns: the reader waits for good. */
static int fails(const void *arg, int in_fd, char *out, size_t cap,
		 size_t *len, int *fd)
{
	(void)in_fd;
	(void)out;
	(void)cap;
	(void)len;
	(void)fd;
	while (!strcmp(arg, "stall"))
		pause();
	return -ENOENT;
}

/* Reads what the caller's descriptor holds, and hands back /dev/null. */
static int swap_fds(const void *arg, int in_fd, char *out, size_t cap,
		    size_t *len, int *fd)
{
	ssize_t n = read(in_fd, out, cap);

	(void)arg;
	if (n < 0)
		return -errno;
	*len = (size_t)n;
	*fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return *fd < 0 ? -errno : 0;
}

/*
 * What the reader holds: its open descriptors (the listing's own left
 * out), its effective capabilities and no_new_privs, as one line.
 */
static int holdings(const void *arg, int in_fd, char *out, size_t cap,
		    size_t *len, int *fd)
{
	char line[256], caps[32] = "", nnp[8] = "";
	struct dirent *de;
	int n = 0, dfd;
	FILE *fp;
	DIR *d;

	(void)arg;
	(void)in_fd;
	(void)fd;
	d = opendir("/proc/self/fd");
	if (!d)
		return -errno;
	dfd = dirfd(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.' && atoi(de->d_name) != dfd;
	closedir(d);
	fp = fopen("/proc/self/status", "re");
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		sscanf(line, "CapEff: %31s", caps);
		sscanf(line, "NoNewPrivs: %7s", nnp);
	}
	fclose(fp);
	*len = (size_t)snprintf(out, cap, "%d %s %s", n, caps, nnp);
	return 0;
}

static int call(procread_fn fn, const char *arg, char *out, size_t cap,
		unsigned int timeout_ms)
{
	struct procread_call c = {
		.fn = fn, .arg = arg, .arg_len = strlen(arg) + 1, .in_fd = -1,
		.out = out, .cap = cap, .timeout_ms = timeout_ms,
	};
	int err = procread_run(&c);

	if (!err && c.len < cap)
		out[c.len] = '\0';
	return err;
}

static pid_t reader_pid(void)
{
	pid_t pid = 0;
	struct procread_call c = {
		.fn = whoami, .arg = "", .arg_len = 1, .in_fd = -1, .out = &pid,
		.cap = sizeof(pid),
	};

	CU_ASSERT_EQUAL(procread_run(&c), 0);
	return pid;
}

static void test_answers(void)
{
	char out[64];
	pid_t first = reader_pid();

	CU_ASSERT(first > 0 && first != getpid());
	CU_ASSERT_EQUAL(call(echo, "hello", out, sizeof(out), 0), 0);
	CU_ASSERT_STRING_EQUAL(out, "hello");
	/* Its own failure is the call's, and the reader stays. */
	CU_ASSERT_EQUAL(call(fails, "", out, sizeof(out), 0), -ENOENT);
	CU_ASSERT_EQUAL(call(echo, "too long", out, 3, 0), -E2BIG);
	CU_ASSERT_EQUAL(reader_pid(), first);
	CU_ASSERT_EQUAL(call(echo, "", out, PROCREAD_OUT_MAX + 1, 0), -EINVAL);
}

static void test_descriptors(void)
{
	struct procread_call c = { .fn = swap_fds, .arg = "", .arg_len = 1 };
	char out[16] = "";
	int p[2];

	CU_ASSERT_EQUAL_FATAL(pipe2(p, O_CLOEXEC), 0);
	CU_ASSERT_EQUAL(write(p[1], "abc", 3), 3);
	c.in_fd = p[0];
	c.out = out;
	c.cap = sizeof(out) - 1;
	CU_ASSERT_EQUAL(procread_run(&c), 0);
	CU_ASSERT_EQUAL(c.len, 3);
	CU_ASSERT_STRING_EQUAL(out, "abc");
	CU_ASSERT(c.fd >= 0);
	CU_ASSERT(fcntl(c.fd, F_GETFD) & FD_CLOEXEC);
	close(c.fd);
	close(p[0]);
	close(p[1]);
}

/* Past its deadline the reader is killed, and the next call has another. */
static void test_deadline(void)
{
	struct timespec a, b;
	char out[16];
	pid_t before = reader_pid(), after;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &a);
	CU_ASSERT_EQUAL(call(fails, "stall", out, sizeof(out), 200), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
	CU_ASSERT(ms >= 190 && ms < 5000);
	after = reader_pid();
	CU_ASSERT(after > 0 && after != before);
	CU_ASSERT_EQUAL(call(echo, "again", out, sizeof(out), 0), 0);
	CU_ASSERT_STRING_EQUAL(out, "again");
}

/*
 * The reader holds 0-2 (/dev/null) and its socket only: none of the
 * caller's descriptors, opened before it started or after; of its
 * capabilities at most CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and
 * CAP_SYS_PTRACE (0x80006), and it cannot gain more.
 */
static void test_holdings(void)
{
	char out[128], caps[32] = "";
	unsigned long long eff;
	int n = -1, fd;

	/* A new reader, after this descriptor exists. */
	fd = open("/dev/null", O_RDONLY);
	CU_ASSERT_EQUAL(call(fails, "stall", out, sizeof(out), 50), -ETIMEDOUT);
	CU_ASSERT_EQUAL_FATAL(call(holdings, "", out, sizeof(out), 0), 0);
	close(fd);
	CU_ASSERT_EQUAL(sscanf(out, "%d %31s", &n, caps), 2);
	CU_ASSERT_EQUAL(n, 4);
	eff = strtoull(caps, NULL, 16);
	CU_ASSERT_EQUAL(eff & ~0x80006ull, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, " 1"));
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "an answer, or the call's own failure; the reader stays", test_answers },
		{ "a descriptor each way, close-on-exec", test_descriptors },
		{ "past the deadline: killed, and another one next", test_deadline },
		{ "it holds its socket and few capabilities only", test_holdings },
		CU_TEST_INFO_NULL,
	};

	return add_suite("procread", tests);
}

UNIT_SUITE(register_tests)
