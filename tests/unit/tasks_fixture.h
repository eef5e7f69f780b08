/* SPDX-License-Identifier: MIT */
/*
 * Device tasks the unit tests make by hand, without a window's files: for
 * what reads struct profdata's tasks (the overlap analysis, the db).
 */
#ifndef MSPROF_UNIT_TASKS_FIXTURE_H
#define MSPROF_UNIT_TASKS_FIXTURE_H

#include <stdint.h>

#include "export/profdata.h"

/* A task of device dev, its op named name (typed by the name), appended. */
void unit_add_task(struct profdata *p, uint32_t dev, const char *name,
		   uint64_t start, uint64_t end);
/* A window without tasks yet, room for 16. */
struct profdata *unit_no_tasks(void);
/* Two devices' tasks: copies and overlapping, nested, touching kernels. */
struct profdata *unit_two_devices_tasks(void);
void unit_free_tasks(struct profdata *p);

#endif
