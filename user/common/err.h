/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_ERR_H
#define MSPROF_ERR_H

#include <stdio.h>

/*
 * The one way the controller and export speak to the user: a line on
 * stderr in msprof's name.  ERR says why something failed, WARN what went
 * on anyway (data left out, a fallback); nothing else prints to stderr.
 */
#define ERR(fmt, ...) fprintf(stderr, "msprof: " fmt "\n", ##__VA_ARGS__)
#define WARN(fmt, ...) fprintf(stderr, "msprof: warning: " fmt "\n", ##__VA_ARGS__)

#endif
