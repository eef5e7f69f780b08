/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_ERR_H
#define MSPROF_ERR_H

#include <stdio.h>

/* One line on stderr, in msprof's name: errors and warnings alike. */
#define ERR(fmt, ...) fprintf(stderr, "msprof: " fmt "\n", ##__VA_ARGS__)

#endif
