// SPDX-License-Identifier: MIT
/* Device tasks the unit tests make by hand. */
#include <stdlib.h>
#include <string.h>

#include "tasks_fixture.h"
#include "unit.h"

void unit_add_task(struct profdata *p, uint32_t dev, const char *name,
		   uint64_t start, uint64_t end)
{
	struct devtask *t = &p->tasks[p->ntasks++];

	memset(t, 0, sizeof(*t));
	t->device = dev;
	t->start_ns = start;
	t->end_ns = end;
	CU_ASSERT_EQUAL(profdata_op_named(p, name, strlen(name),
					  profdata_type_of_name(name, strlen(name)), 0,
					  &t->op), 0);
}

struct profdata *unit_no_tasks(void)
{
	struct profdata *p = calloc(1, sizeof(*p));

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->tasks = calloc(16, sizeof(*p->tasks));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->tasks);
	p->meta.rank_id = -1;
	return p;
}

struct profdata *unit_two_devices_tasks(void)
{
	struct profdata *p = unit_no_tasks();

	unit_add_task(p, 0, "MEMCPY_ASYNC", 100, 150);
	unit_add_task(p, 0, "matmul", 150, 250);
	unit_add_task(p, 0, "relu", 200, 300);
	unit_add_task(p, 0, "matmul", 400, 500);
	unit_add_task(p, 0, "relu", 420, 450);
	unit_add_task(p, 0, "MEMCPY_ASYNC", 450, 600);
	unit_add_task(p, 1, "relu", 10, 20);
	unit_add_task(p, 1, "relu", 20, 30);
	return p;
}

void unit_free_tasks(struct profdata *p)
{
	unit_free_window(p);
	free(p);
}

void unit_fake_window(struct profdata *p, const struct unit_fake_task *ft,
		      size_t n)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	/* Epoch = the start's real time (whole µs) + monotonic ns. */
	p->meta.start.real_ns = 1000000000000000000ull;
	p->tasks = calloc(n, sizeof(*p->tasks));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->tasks);
	p->ntasks = n;
	for (i = 0; i < n; i++) {
		struct devtask *t = &p->tasks[i];

		size_t len = strlen(ft[i].name);

		CU_ASSERT_EQUAL(profdata_op_named(p, ft[i].name, len,
						  profdata_type_of_name(ft[i].name, len),
						  8, &t->op), 0);
		t->device = ft[i].device;
		t->stream = 1;
		t->task_id = (uint32_t)i;
		t->start_ns = ft[i].start;
		t->end_ns = ft[i].start + ft[i].dur;
	}
}

void unit_free_window(struct profdata *p)
{
	free(p->tasks);
	strtab_free(&p->names);
	free(p->ops);
	free(p->op_slots);
}
