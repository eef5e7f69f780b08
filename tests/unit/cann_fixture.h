/* SPDX-License-Identifier: MIT */
/* Directories of the agent's CANN raw files, as the unit tests read them. */
#ifndef MSPROF_UNIT_CANN_FIXTURE_H
#define MSPROF_UNIT_CANN_FIXTURE_H

#include <stddef.h>

/* A new directory in dir[24] (unit_remove_dir removes it). */
void unit_cann_dir(char *dir);
/* Size of dir/name, -1 when absent. */
long long unit_file_size(const char *dir, const char *name);
/* The text of dir/name, NUL-terminated, in buf[len]. */
void unit_read_file(const char *dir, const char *name, char *buf, size_t len);
/* The slices base.slice_0.. in dir: how many, each a whole of size. */
unsigned int unit_check_slices(const char *dir, const char *base,
			       size_t size, long long limit,
			       long long *total);

#endif
