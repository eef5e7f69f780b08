/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_START_AT_H
#define MSPROF_START_AT_H

#include <stddef.h>
#include <stdint.h>

/* How far ahead "start at" may be: a typo of a date is caught. */
#define START_AT_MAX_AHEAD_S (24 * 3600)

/*
 * The instant of "start at <when>", as CLOCK_REALTIME ns, in *at_ns:
 * "@<epoch seconds>[.<fraction>]" or ISO 8601 with its zone,
 * "YYYY-MM-DDThh:mm:ss[.fraction](Z|+hh:mm|-hh:mm|+hhmm|-hhmm)" (a time
 * without a zone would mean a different instant on a node with another
 * TZ).  now_ns is the CLOCK_REALTIME of now: an instant before it, or more
 * than START_AT_MAX_AHEAD_S after it, is refused.  0, or -EINVAL with a
 * one-line reason in err.
 */
int start_at_parse(const char *when, uint64_t now_ns, uint64_t *at_ns,
		   char *err, size_t len);

#endif
