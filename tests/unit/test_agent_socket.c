// SPDX-License-Identifier: MIT
/* Finding a task's agent socket: a container's user database. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "task/agent_socket.h"
#include "unit.h"

/* A container's user database (what its root wrote), as an fd. */
static int passwd_fd(const char *text, size_t len)
{
	int fd = memfd_create("passwd", MFD_CLOEXEC);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(write(fd, text, len), (ssize_t)len);
	lseek(fd, 0, SEEK_SET);
	return fd;
}

static int passwd_lookup(const char *text, size_t len, uid_t uid,
			 char *home, size_t hlen)
{
	*home = '\0';
	return agent_socket_passwd_home_fd(passwd_fd(text, len), uid, home, hlen);
}

/* Entries as fgetpwent() reads them; blank, '#' and short lines are none. */
static void test_passwd_home(void)
{
	static const char db[] =
		"root:x:0:0:root:/root:/bin/bash\n"
		"#u:x:1000:1000::/commented:/bin/sh\n"
		"   \n"
		"short:x:1000\n"
		"v:x:1000x:1000::/not-a-uid:/bin/sh\n"
		"u:x:1000:1000:U:/home/u:/bin/sh";	/* no newline at its end */
	char home[PATH_MAX];

	CU_ASSERT_EQUAL(passwd_lookup(db, sizeof(db) - 1, 1000, home, sizeof(home)), 0);
	CU_ASSERT_STRING_EQUAL(home, "/home/u");
	CU_ASSERT_EQUAL(passwd_lookup(db, sizeof(db) - 1, 0, home, sizeof(home)), 0);
	CU_ASSERT_STRING_EQUAL(home, "/root");
	CU_ASSERT_EQUAL(passwd_lookup(db, sizeof(db) - 1, 7, home, sizeof(home)), -ENOENT);
	CU_ASSERT_EQUAL(passwd_lookup(db, sizeof(db) - 1, 1000, home, 4), -ENAMETOOLONG);
}

/*
 * A 16 MiB line costs no memory (fgetpwent grew its buffer to the line:
 * VmHWM +16.5 MiB), and its tail, which reads like an entry, is none.
 */
static void test_passwd_long_line(void)
{
	static const char tail[] = ":x:1000:1000::/evil:/bin/sh\nu:x:1000:1000::/home/u:/bin/sh\n";
	size_t fill = (16u << 20) - 4096, len = fill + sizeof(tail) - 1;
	char *db = malloc(len), home[PATH_MAX];
	long before;
	int fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(db);
	memset(db, 'a', fill);
	memcpy(db + fill, tail, sizeof(tail) - 1);
	fd = passwd_fd(db, len);
	free(db);
	before = unit_peak_reset();
	CU_ASSERT_EQUAL(agent_socket_passwd_home_fd(fd, 1000, home, sizeof(home)), 0);
	CU_ASSERT(unit_peak_kib() - before < 1024);
	CU_ASSERT_STRING_EQUAL(home, "/home/u");
	/* Past 16 MiB: not read at all. */
	fd = passwd_fd("u:x:1000:1000::/home/u:/bin/sh\n", 31);
	CU_ASSERT_EQUAL_FATAL(ftruncate(fd, (16 << 20) + 1), 0);
	CU_ASSERT_EQUAL(agent_socket_passwd_home_fd(fd, 1000, home, sizeof(home)), -EINVAL);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "a container's /etc/passwd: the uid's home", test_passwd_home },
		{ "a container's /etc/passwd: a 16 MiB line costs no memory", test_passwd_long_line },
		CU_TEST_INFO_NULL,
	};

	(void)skipped;
	return add_suite("agent_socket", tests);
}

UNIT_SUITE(register_tests)
