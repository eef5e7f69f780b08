/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_EXPORT_OSRT_CALL_H
#define MSPROF_EXPORT_OSRT_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "profdata.h"

/*
 * An OS runtime call's name, for the track, the db and osrt_statistic:
 * its syscall's (osrt_syscall_name), or its pthread function's, as the
 * window's name records say it.
 */
const char *osrt_call_name(const struct profdata *p, uint8_t what, uint32_t id,
			   char *buf, size_t len);

#endif
