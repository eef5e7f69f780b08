/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_DB_H
#define MSPROF_DB_H

#include "profdata.h"

/*
 * --type=db: writes PROF_X/msprof_<YYYYMMDDhhmmss>.db (msprof's tables)
 * into the PROF_ directory open as dirfd, and prints its path under
 * label.  Made under a temporary name and renamed in whole; an earlier
 * export's db is removed then.  Errors are reported, under label.
 */
int db_export(int dirfd, const char *label, const struct profdata *p);

/*
 * Removes an earlier export's msprof_<14 digits>.db from dirfd but keep
 * (NULL: all): a text export leaves no db beside it that readers would
 * take instead.
 */
int db_remove_stale(int dirfd, const char *keep);

#endif
