/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_DB_H
#define MSPROF_DB_H

#include <limits.h>
#include <sqlite3.h>

#include "profdata.h"

/* A db written under its temporary name, not yet renamed in. */
struct db_file {
	char name[32];
	char tmp[NAME_MAX + 1];
};

/*
 * --type=db: PROF_X/msprof_<YYYYMMDDhhmmss>.db (msprof's tables) in the
 * PROF_ directory open as dirfd, in two steps, so that the db can be
 * written beside the text outputs and renamed in only once they are:
 * db_write fills f under a temporary name (nothing is left on error),
 * then db_commit renames it in, prints its path under label and removes
 * an earlier export's db, or db_discard removes it.  Errors are reported,
 * under label.
 */
int db_write(int dirfd, const char *label, const struct profdata *p,
	     struct db_file *f);
int db_commit(int dirfd, const char *label, const struct db_file *f);
void db_discard(int dirfd, const struct db_file *f);

/*
 * Removes an earlier export's msprof_<14 digits>.db from dirfd but keep
 * (NULL: all): a text export leaves no db beside it that readers would
 * take instead.
 */
int db_remove_stale(int dirfd, const char *keep);

/*
 * sqlite on the empty file tmp of the directory open as dirfd, reached
 * through that descriptor (/proc/self/fd/<dirfd>/tmp, which sqlite is
 * kept from resolving into a path of its own): no name is looked up
 * again where someone could have swapped it.  h must stay put until
 * db_close(), which unregisters what db_open_at() registered.
 */
struct db_handle {
	sqlite3 *db;
	sqlite3_vfs vfs;
};

int db_open_at(int dirfd, const char *tmp, struct db_handle *h);
int db_close(struct db_handle *h);

/* An error of sqlite's as -errno, for the one message at the edge. */
int db_err(int rc);

#endif
