/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_ANALYZE_DB_H
#define MSPROF_ANALYZE_DB_H

#include "comm.h"
#include "profdata.h"

/*
 * analyze/communication_analyzer.db, msprof's communication analysis in
 * its tables (CommAnalyzerTime, CommAnalyzerBandwidth,
 * CommAnalyzerMatrix), which msprof-analyze's cluster recipes read for a
 * rank of db data: the same ops and values as the JSON files.  Fills the
 * empty file tmp of the directory open as dirfd.
 */
int analyze_db_write(int dirfd, const char *tmp, const struct profdata *p,
		     const struct comm_ops *c);

#endif
