/* SPDX-License-Identifier: MIT */
/*
 * Device tasks the unit tests make by hand, without a window's files: for
 * what reads struct profdata's tasks (the overlap analysis, the db, the
 * summaries, the collectives' names).
 */
#ifndef MSPROF_UNIT_TASKS_FIXTURE_H
#define MSPROF_UNIT_TASKS_FIXTURE_H

#include <stddef.h>
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

/* A window of tasks in memory: (device, name, start, duration) each. */
struct unit_fake_task {
	uint32_t device;
	const char *name;
	uint64_t start, dur;
};

/* p made of n tasks ft[], each of 8 blocks on stream 1, numbered from 0. */
void unit_fake_window(struct profdata *p, const struct unit_fake_task *ft,
		      size_t n);
/* What unit_fake_window allocated (p itself is the caller's). */
void unit_free_window(struct profdata *p);

#endif
