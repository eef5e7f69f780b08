/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_EXPORT_H
#define MSPROF_EXPORT_H

/*
 * msprof --export=on: dir is a PROF_ directory or a directory holding
 * some; each gets mindstudio_profiler_output/msprof_<ts>.json.  0 only
 * when every PROF_ entry was exported whole; what went wrong is reported.
 */
int export_run(const char *dir);

#endif
