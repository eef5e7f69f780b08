/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_ANALYZE_H
#define MSPROF_ANALYZE_H

/*
 * msprof --analyze=on: dir is a PROF_ directory or one holding some, found
 * as --export=on finds them; each gets analyze/communication.json and
 * analyze/communication_matrix.json, msprof's communication analysis.  0
 * only when every PROF_ entry was analyzed; what went wrong is reported.
 */
int analyze_run(const char *dir);

#endif
