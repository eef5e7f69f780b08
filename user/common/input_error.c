// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "input_error.h"
#include "printable.h"

int input_error(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	/* The input quoted may hold a newline or an escape: one line, inert. */
	printable(err);
	return -EINVAL;
}
