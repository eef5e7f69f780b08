// SPDX-License-Identifier: MIT
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/home.h"
#include "unit.h"

/* The socket's home: HOME, and the password entry's where HOME is empty. */
static void test_home_dir(void)
{
	const char *saved = getenv("HOME");
	char *old = saved ? strdup(saved) : NULL;
	struct passwd *pw = getpwuid(getuid());
	const char *db = pw && pw->pw_dir[0] ? pw->pw_dir : NULL;
	const char *got;

	CU_ASSERT_EQUAL(setenv("HOME", "/nowhere/home", 1), 0);
	got = home_dir();
	CU_ASSERT(got && !strcmp(got, "/nowhere/home"));
	CU_ASSERT_EQUAL(setenv("HOME", "", 1), 0);
	got = home_dir();
	CU_ASSERT(db ? got && !strcmp(got, db) : !got);
	CU_ASSERT_EQUAL(unsetenv("HOME"), 0);
	got = home_dir();
	CU_ASSERT(db ? got && !strcmp(got, db) : !got);
	if (old)
		setenv("HOME", old, 1);
	free(old);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "home: HOME, else the password entry", test_home_dir },
		CU_TEST_INFO_NULL,
	};

	return add_suite("home", tests);
}

UNIT_SUITE(register_tests)
