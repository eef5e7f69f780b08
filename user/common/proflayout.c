// SPDX-License-Identifier: MIT
/*
 * The name msprof gives a PROF_ directory: made by the controller and the
 * agent, checked by the stage's copy.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "proflayout.h"

int proflayout_name_make(char *buf, size_t len, unsigned int index,
			 uint64_t real_ns, int pid, const unsigned char rnd[8])
{
	time_t secs = (time_t)(real_ns / 1000000000ull);
	char stamp[32], letters[9];
	struct tm tm;
	int i, n;

	localtime_r(&secs, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	for (i = 0; i < 8; i++)
		letters[i] = (char)('A' + rnd[i] % 18);	/* A..R */
	letters[8] = '\0';
	n = snprintf(buf, len, PROFDIR_PREFIX "%06u_%s%03u_%08u%s",
		     index % 999999 ? index % 999999 : 999999, stamp,
		     (unsigned int)(real_ns / 1000000ull % 1000),
		     (unsigned int)pid % 100000000u, letters);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

static bool digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

bool proflayout_name_ok(const char *s)
{
	size_t i;

	if (strlen(s) != PROFDIR_NAME_LEN || strncmp(s, PROFDIR_PREFIX, 5) ||
	    !digits(s + 5, 6) || s[11] != '_' || !digits(s + 12, 17) ||
	    s[29] != '_' || !digits(s + 30, 8))
		return false;
	for (i = 38; i < PROFDIR_NAME_LEN; i++)
		if (s[i] < 'A' || s[i] > 'R')
			return false;
	return true;
}
