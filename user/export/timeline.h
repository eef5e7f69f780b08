/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_TIMELINE_H
#define MSPROF_TIMELINE_H

#include <stdio.h>

#include "profdata.h"

/* Writes p as a Chrome Trace Event array (what Perfetto opens). */
int timeline_write(FILE *fp, const struct profdata *p);

#endif
