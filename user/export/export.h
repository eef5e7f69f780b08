/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_EXPORT_H
#define MSPROF_EXPORT_H

/*
 * msprof --export=on: dir is a PROF_ directory or a directory holding
 * some; each gets mindstudio_profiler_output/msprof_<ts>.json.
 */
int export_run(const char *dir);

#endif
