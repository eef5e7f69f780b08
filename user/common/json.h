/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_JSON_H
#define MSPROF_JSON_H

#include <stdio.h>

/* Writes s as a JSON string literal, quotes included. */
void json_put_str(FILE *fp, const char *s);

/*
 * The number after the first "key": in text, 0 if there is none: for
 * msprof's own files, whose keys never appear inside a string (a quote
 * there is escaped).
 */
long long json_find_number(const char *text, const char *key);

#endif
