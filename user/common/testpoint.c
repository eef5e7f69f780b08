// SPDX-License-Identifier: MIT
/* Named pause points for the fault tests (MSPROF_TEST_PAUSE). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testpoint.h"

/* Long enough for any test to act, short enough that a lost test ends. */
#define TESTPOINT_WAIT_S 60

/*
 * The one piece of state outside main: written once by testpoint_init()
 * before main does anything else, only read afterwards.  Passing it down
 * instead would put a test hook into the signature of every layer, from
 * the session down to profdir.c and export.c.
 */
static const char *pause_at;

void testpoint_init(void)
{
	const char *env = getenv("MSPROF_TEST_PAUSE");

	pause_at = env && *env ? env : NULL;
}

void testpoint(const char *step)
{
	struct timespec left = { .tv_sec = TESTPOINT_WAIT_S };

	if (!pause_at || strcmp(pause_at, step))
		return;
	fprintf(stderr, "msprof: test pause at %s\n", step);
	fflush(stderr);
	/* Signals msprof handles are blocked: only SIGKILL/SIGSTOP reach it. */
	while (nanosleep(&left, &left) && errno == EINTR)
		;
	fprintf(stderr, "msprof: test pause at %s over, going on\n", step);
}
