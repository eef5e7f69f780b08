// SPDX-License-Identifier: MIT
/* "start at <when>": the wall-clock instant every node's window starts at. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "common/input_error.h"
#include "start_at.h"

#define NS_PER_S 1000000000ull

/* Exactly n decimal digits at *p, advanced past them. */
static bool digits(const char **p, int n, unsigned int *out)
{
	*out = 0;
	while (n--) {
		if (**p < '0' || **p > '9')
			return false;
		*out = *out * 10 + (unsigned int)(*(*p)++ - '0');
	}
	return true;
}

/* ".<1-9 digits>" as ns, or nothing; false for a dot without digits. */
static bool fraction(const char **p, uint64_t *ns)
{
	uint64_t scale = NS_PER_S;
	int n = 0;

	*ns = 0;
	if (**p != '.')
		return true;
	for ((*p)++; **p >= '0' && **p <= '9'; (*p)++, n++) {
		if (n == 9)
			return false;
		scale /= 10;
		*ns += (uint64_t)(**p - '0') * scale;
	}
	return n > 0;
}

/* "@<seconds>[.<fraction>]" */
static bool parse_epoch(const char *p, uint64_t *at_ns)
{
	uint64_t s = 0, ns;
	int n = 0;

	for (; *p >= '0' && *p <= '9'; p++, n++) {
		if (n == 11)	/* past year 5000: no instant within a day */
			return false;
		s = s * 10 + (uint64_t)(*p - '0');
	}
	if (!n || !fraction(&p, &ns) || *p)
		return false;
	*at_ns = s * NS_PER_S + ns;
	return true;
}

static bool leap(unsigned int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Days from 1970-01-01 to y-m-d, for y >= 1970. */
static uint64_t days_since_epoch(unsigned int y, unsigned int m, unsigned int d)
{
	static const unsigned short before[12] = {
		0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };
	uint64_t days = d - 1 + before[m - 1] + (m > 2 && leap(y));
	unsigned int i;

	for (i = 1970; i < y; i++)
		days += leap(i) ? 366 : 365;
	return days;
}

/* "Z", "+hh:mm", "-hh:mm", "+hhmm" or "-hhmm": seconds east of UTC. */
static bool zone(const char *p, long *east_s)
{
	unsigned int h, m;
	int sign;

	if (!strcmp(p, "Z") || !strcmp(p, "z")) {
		*east_s = 0;
		return true;
	}
	if (*p != '+' && *p != '-')
		return false;
	sign = *p++ == '-' ? -1 : 1;
	if (!digits(&p, 2, &h))
		return false;
	if (*p == ':')
		p++;
	if (!digits(&p, 2, &m) || *p || h > 23 || m > 59)
		return false;
	*east_s = sign * (long)(h * 3600 + m * 60);
	return true;
}

/* "YYYY-MM-DDThh:mm:ss[.fraction]<zone>" */
static bool parse_iso(const char *p, uint64_t *at_ns)
{
	static const unsigned char mdays[12] = {
		31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	unsigned int y, mo, d, h, mi, s;
	uint64_t ns, secs;
	long east;

	if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) ||
	    *p++ != '-' || !digits(&p, 2, &d))
		return false;
	if ((*p != 'T' && *p != 't') || !(p++, digits(&p, 2, &h)) ||
	    *p++ != ':' || !digits(&p, 2, &mi) || *p++ != ':' ||
	    !digits(&p, 2, &s) || !fraction(&p, &ns) || !zone(p, &east))
		return false;
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    (mo == 2 && d == 29 && !leap(y)) || h > 23 || mi > 59 || s > 59)
		return false;
	secs = days_since_epoch(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
	if (east > 0 && secs < (uint64_t)east)
		return false;
	*at_ns = (secs - (uint64_t)east) * NS_PER_S + ns;
	return true;
}

int start_at_parse(const char *when, uint64_t now_ns, uint64_t *at_ns,
		   char *err, size_t len)
{
	bool ok = *when == '@' ? parse_epoch(when + 1, at_ns) :
				 parse_iso(when, at_ns);

	if (!ok)
		return input_error(err, len, "start at: '%.64s' is not @<epoch seconds>[.fraction] nor an ISO 8601 time with its zone (2026-12-01T04:00:00Z, ...+01:00)",
				   when);
	if (*at_ns < now_ns)
		return input_error(err, len, "start at: %.64s is %.3f s in the past",
				   when, (double)(now_ns - *at_ns) / 1e9);
	if (*at_ns - now_ns > START_AT_MAX_AHEAD_S * NS_PER_S)
		return input_error(err, len, "start at: %.64s is more than a day ahead",
				   when);
	return 0;
}
