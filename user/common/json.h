/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_JSON_H
#define MSPROF_JSON_H

#include <stdio.h>

/* Writes s as a JSON string literal, quotes included. */
void json_put_str(FILE *fp, const char *s);

#endif
