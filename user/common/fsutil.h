/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_FSUTIL_H
#define MSPROF_FSUTIL_H

#include <sys/types.h>

/* mkdir -p: every missing directory of path; 0 or -errno. */
int mkdir_p(const char *path, mode_t mode);

#endif
