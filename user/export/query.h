/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_QUERY_H
#define MSPROF_QUERY_H

/*
 * msprof --query=on: prints msprof's query table for dir, a PROF_
 * directory or one holding some, a row per window.  0 only when every
 * PROF_ entry could be read; what could not is reported.
 */
int query_run(const char *dir);

#endif
