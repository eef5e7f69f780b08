// SPDX-License-Identifier: MIT
/* Named pause points for the fault tests (MSPROF_TEST_PAUSE). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "testpoint.h"

/* Long enough for any test to act, short enough that a lost test ends. */
#define TESTPOINT_WAIT_S 60

/*
 * The only state outside main: written once by testpoint_init() before
 * main does anything else, only read afterwards.  Passing it down instead
 * would put a test hook into the signature of every layer, from the
 * session down to profdir.c and export.c.
 */
static const char *pause_at;
static const char *limits;

void testpoint_init(void)
{
	const char *env = getenv("MSPROF_TEST_PAUSE");

	pause_at = env && *env ? env : NULL;
	env = getenv("MSPROF_TEST_LIMITS");
	limits = env && *env ? env : NULL;
}

/* v if "<name>=<v>" begins p (up to a ',' or the end), else def. */
static unsigned long long limit_at(const char *p, const char *name,
				   unsigned long long def)
{
	size_t n = strlen(name);
	unsigned long long v;
	char *end;

	if (strncmp(p, name, n) || p[n] != '=' || p[n + 1] < '0' || p[n + 1] > '9')
		return def;
	errno = 0;
	v = strtoull(p + n + 1, &end, 10);
	return errno || (*end && *end != ',') ? def : v;
}

unsigned long long testpoint_limit(const char *name, unsigned long long def)
{
	const char *p = limits;
	unsigned long long v;

	while (p) {
		v = limit_at(p, name, def);
		/* Lowered only: a test can never let msprof take more. */
		if (v < def)
			return v;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return def;
}

void testpoint(const char *step)
{
	struct timespec left = { .tv_sec = TESTPOINT_WAIT_S };

	if (!pause_at || strcmp(pause_at, step))
		return;
	ERR("test pause at %s", step);
	fflush(stderr);
	/* Signals msprof handles are blocked: only SIGKILL/SIGSTOP reach it. */
	while (nanosleep(&left, &left) && errno == EINTR)
		;
	ERR("test pause at %s over, going on", step);
}
