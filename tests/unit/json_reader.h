/* SPDX-License-Identifier: MIT */
/* The unit tests' JSON reader: an export's text checked as JSON, its events read. */
#ifndef MSPROF_UNIT_JSON_READER_H
#define MSPROF_UNIT_JSON_READER_H

#include <stdbool.h>
#include <stddef.h>

struct ev {
	char name[96], ph[4], ts[32], dur[32], id[32], cat[32];
	char pid_text[24], tid_text[24];
	long long pid, tid;
};

struct evs {
	struct ev v[256];
	size_t n;
};

void unit_json_ws(const char **p);
/* One JSON value at *p, at most 16 deep; *p past it. */
bool unit_json_value(const char **p, int depth);
/* The timeline: one array of event objects, nothing after it. */
bool unit_json_events(const char *text, struct evs *out);

#endif
