/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_INPUT_ERROR_H
#define MSPROF_INPUT_ERROR_H

#include <stddef.h>

/*
 * Bad user input: writes the one-line explanation into err and returns
 * -EINVAL, so a parser can `return input_error(err, len, "...", ...)`.
 */
__attribute__((format(printf, 3, 4)))
int input_error(char *err, size_t len, const char *fmt, ...);

#endif
