// SPDX-License-Identifier: MIT
/* The name msprof gives a PROF_ directory: the controller's and the agent's. */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "profname.h"

int profname_make(char *buf, size_t len, unsigned int index, uint64_t real_ns,
		 int pid, const unsigned char rnd[8])
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
	n = snprintf(buf, len, "PROF_%06u_%s%03u_%08u%s",
		     index % 999999 ? index % 999999 : 999999, stamp,
		     (unsigned int)(real_ns / 1000000ull % 1000),
		     (unsigned int)pid % 100000000u, letters);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}
