/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_EXPORT_H
#define MSPROF_EXPORT_H

#include <stdbool.h>

/*
 * msprof --export=on: dir is a PROF_ directory or a directory holding
 * some; each gets mindstudio_profiler_output/msprof_<ts>.json, and with
 * db (--type=db) msprof_<ts>.db too.  0 only when every PROF_ entry was
 * exported whole; what went wrong is reported.
 */
int export_run(const char *dir, bool db);

#endif
