// SPDX-License-Identifier: MIT
#include <stdlib.h>

#include "growarr.h"

/* The first room made: a few reallocs saved for arrays that grow long. */
#define GROWARR_FIRST 64

void *growarr_push(void **arr, size_t *n, size_t *cap, size_t size)
{
	size_t ncap, bytes;
	void *p;

	if (*n == *cap) {
		if (!*cap)
			ncap = GROWARR_FIRST;
		else if (__builtin_mul_overflow(*cap, 2, &ncap))
			return NULL;
		if (__builtin_mul_overflow(ncap, size, &bytes))
			return NULL;
		p = realloc(*arr, bytes);
		if (!p)
			return NULL;
		*arr = p;
		*cap = ncap;
	}
	return (char *)*arr + (*n)++ * size;
}
