// SPDX-License-Identifier: MIT
/* A task's rank, as its launcher's environment gives it. */
#include <stdlib.h>
#include <string.h>

#include "rankid.h"

int rankid_parse(const char *val)
{
	size_t n = strlen(val);

	if (!n || n > 9 || strspn(val, "0123456789") != n)
		return -1;
	return atoi(val);
}
