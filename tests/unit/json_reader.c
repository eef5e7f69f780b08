// SPDX-License-Identifier: MIT
/* The unit tests' JSON reader: strict enough to refuse what msprof's readers would. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "json_reader.h"

void unit_json_ws(const char **p)
{
	while (**p == ' ' || **p == '\n' || **p == '\r' || **p == '\t')
		(*p)++;
}

/* A string; its text (escapes left as they are) into out if not NULL. */
static bool json_string(const char **p, char *out, size_t len)
{
	const char *q = *p, *start;
	size_t n;

	if (*q++ != '"')
		return false;
	for (start = q; *q != '"'; q++) {
		if ((unsigned char)*q < 0x20)
			return false;	/* a raw control byte, or the end */
		if (*q != '\\')
			continue;
		q++;
		if (*q == 'u') {
			for (n = 1; n <= 4; n++)
				if (!isxdigit((unsigned char)q[n]))
					return false;
			q += 4;
		} else if (!strchr("\"\\/bfnrt", *q) || !*q) {
			return false;
		}
	}
	n = (size_t)(q - start);
	if (out && n < len) {
		memcpy(out, start, n);
		out[n] = '\0';
	} else if (out) {
		return false;
	}
	*p = q + 1;
	return true;
}

static bool json_number(const char **p, char *out, size_t len)
{
	const char *q = *p;

	if (*q == '-')
		q++;
	if (*q == '0')
		q++;
	else if (isdigit((unsigned char)*q))
		while (isdigit((unsigned char)*q))
			q++;
	else
		return false;
	if (*q == '.') {
		if (!isdigit((unsigned char)*++q))
			return false;
		while (isdigit((unsigned char)*q))
			q++;
	}
	if (*q == 'e' || *q == 'E') {
		q++;
		if (*q == '+' || *q == '-')
			q++;
		if (!isdigit((unsigned char)*q))
			return false;
		while (isdigit((unsigned char)*q))
			q++;
	}
	if (out) {
		if ((size_t)(q - *p) >= len)
			return false;
		memcpy(out, *p, (size_t)(q - *p));
		out[q - *p] = '\0';
	}
	*p = q;
	return true;
}

/* The value of an event's key the checks read, as its text. */
static bool json_capture(const char **p, const char *key, struct ev *ev)
{
#define KEY(k, f, number) { k, offsetof(struct ev, f), sizeof(ev->f), number }
	const struct {
		const char *key;
		size_t off, len;
		bool number;
	} keys[] = {
		KEY("name", name, false), KEY("ph", ph, false), KEY("ts", ts, false),
		KEY("id", id, false), KEY("cat", cat, false), KEY("dur", dur, true),
		KEY("pid", pid_text, true), KEY("tid", tid_text, true),
	};
#undef KEY
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char *out = (char *)ev + keys[i].off;

		if (strcmp(key, keys[i].key))
			continue;
		return keys[i].number ? json_number(p, out, keys[i].len) :
					json_string(p, out, keys[i].len);
	}
	return true;	/* another key: read as any value */
}

/* Members of an object, or elements of an array: what follows the opener. */
static bool json_members(const char **p, int depth, bool object, struct ev *ev)
{
	char close = object ? '}' : ']', key[128];
	const char *q;

	unit_json_ws(p);
	if (**p == close) {
		(*p)++;
		return true;
	}
	for (;;) {
		unit_json_ws(p);
		if (object) {
			if (!json_string(p, key, sizeof(key)))
				return false;
			unit_json_ws(p);
			if (*(*p)++ != ':')
				return false;
			unit_json_ws(p);
			q = *p;
			if (ev && !json_capture(p, key, ev))
				return false;
			if (*p == q && !unit_json_value(p, depth + 1))
				return false;
		} else if (!unit_json_value(p, depth + 1)) {
			return false;
		}
		unit_json_ws(p);
		if (**p == close) {
			(*p)++;
			return true;
		}
		if (*(*p)++ != ',')
			return false;
	}
}

bool unit_json_value(const char **p, int depth)
{
	if (depth > 16)
		return false;
	unit_json_ws(p);
	switch (**p) {
	case '{':
		(*p)++;
		return json_members(p, depth, true, NULL);
	case '[':
		(*p)++;
		return json_members(p, depth, false, NULL);
	case '"':
		return json_string(p, NULL, 0);
	case 't':
		return !strncmp(*p, "true", 4) && (*p += 4);
	case 'f':
		return !strncmp(*p, "false", 5) && (*p += 5);
	case 'n':
		return !strncmp(*p, "null", 4) && (*p += 4);
	}
	return json_number(p, NULL, 0);
}

bool unit_json_events(const char *text, struct evs *out)
{
	const char *p = text;

	out->n = 0;
	unit_json_ws(&p);
	if (*p++ != '[')
		return false;
	unit_json_ws(&p);
	if (*p == ']') {
		p++;
	} else {
		for (;;) {
			struct ev *ev;

			unit_json_ws(&p);
			if (out->n == sizeof(out->v) / sizeof(out->v[0]) || *p++ != '{')
				return false;
			ev = &out->v[out->n++];
			memset(ev, 0, sizeof(*ev));
			if (!json_members(&p, 1, true, ev))
				return false;
			ev->pid = strtoll(ev->pid_text, NULL, 10);
			ev->tid = strtoll(ev->tid_text, NULL, 10);
			unit_json_ws(&p);
			if (*p == ']') {
				p++;
				break;
			}
			if (*p++ != ',')
				return false;
		}
	}
	unit_json_ws(&p);
	return !*p;
}
