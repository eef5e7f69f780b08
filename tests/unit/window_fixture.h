/* SPDX-License-Identifier: MIT */
/*
 * Windows the unit tests make: by hand, a PROF_ directory's files for the
 * export; or by profdir, as msprof makes them.
 */
#ifndef MSPROF_UNIT_WINDOW_FIXTURE_H
#define MSPROF_UNIT_WINDOW_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

struct profdir_summary;

/* name (beneath dir) holding text. */
void unit_put(const char *dir, const char *name, const char *text);
/* name (beneath dir): a record file of one record. */
void unit_put_records(const char *dir, const char *name, uint16_t type,
		      const void *rec, size_t len);
/* A fresh window's directories, its start (epoch = 1 ms + monotonic ns), facts. */
void unit_window_dirs(char *dir, const char *facts);
void unit_remove_dir(const char *dir);
/*
 * A window of one collective (an HcclAllReduce call, its task named
 * op_type) beside a computing task and a collective whose call went unseen.
 */
void unit_comm_window(char *dir, const char *op_type);
/*
 * A window profdir made for sum, started now, in a new directory base (its
 * fd in *out), its host file made: the window's directory fd.
 */
int unit_profdir_window(char *base, int *out, struct profdir_summary *sum);

#endif
