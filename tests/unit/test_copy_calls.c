// SPDX-License-Identifier: MIT
/*
 * The copies whose launching call tells their size (export/copy_calls.c):
 * only copies of a known call and no memcpy_info are kept, by call, and a
 * call's count and kind reach every copy it made.
 */
#include <stdlib.h>
#include <string.h>

#include "export/copy_calls.h"
#include "unit.h"

static void add_task(struct profdata *p, const char *name, uint32_t conn)
{
	struct devtask *t = &p->tasks[p->ntasks++];

	memset(t, 0, sizeof(*t));
	t->conn = conn;
	t->task_id = (uint32_t)p->ntasks;
	CU_ASSERT_EQUAL(profdata_op_named(p, name, strlen(name),
					  profdata_type_of_name(name, strlen(name)), 0,
					  &t->op), 0);
}

static void test_copy_calls(void)
{
	struct profdata *p = calloc(1, sizeof(*p));
	struct api_desc d = { .name = "aclrtMemcpyAsync",
			      .args = { "dst", "count", "kind" } };
	struct msprof_api_event e = { .args = { 0x1000, 4096, 1 } };
	struct copy_calls c;
	const struct copy_call *f;
	struct copy_call *m;
	size_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->tasks = calloc(8, sizeof(*p->tasks));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->tasks);
	add_task(p, "MEMCPY_ASYNC", 7);
	add_task(p, "matmul", 7);	/* no copy: not kept */
	add_task(p, "MEMCPY_ASYNC", 0);	/* no call seen: not kept */
	add_task(p, "MEMCPY_ASYNC", 3);
	add_task(p, "MEMCPY_ASYNC", 7);
	CU_ASSERT_EQUAL_FATAL(copy_calls_load(&c, p), 0);
	CU_ASSERT_EQUAL(c.n, 3);
	/* By call, then task. */
	CU_ASSERT_EQUAL(c.v[0].conn, 3);
	CU_ASSERT_EQUAL(c.v[1].task, 0);
	CU_ASSERT_EQUAL(c.v[2].task, 4);
	CU_ASSERT_PTR_NULL(copy_calls_find(&c, 5));
	CU_ASSERT_PTR_NULL(copy_calls_note(&c, &d, &e, 5, &n));
	CU_ASSERT_EQUAL(n, 0);

	m = copy_calls_note(&c, &d, &e, 7, &n);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT(m[0].has_bytes && m[0].has_kind && m[1].has_bytes);
	CU_ASSERT_EQUAL(m[1].bytes, 4096);
	CU_ASSERT_EQUAL(m[1].kind, 1);
	f = copy_calls_find(&c, 7);
	CU_ASSERT_PTR_EQUAL(f, m);
	/* A call of no such arguments (or of no name record) tells nothing. */
	m = copy_calls_note(&c, NULL, &e, 3, &n);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT(!m->has_bytes && !m->has_kind);

	copy_calls_free(&c);
	CU_ASSERT_EQUAL(c.n, 0);
	strtab_free(&p->names);
	free(p->tasks);
	free(p->ops);
	free(p->op_slots);
	free(p);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "copies kept by their call, its count and kind in each", test_copy_calls },
		CU_TEST_INFO_NULL,
	};

	return add_suite("copy_calls", tests);
}
UNIT_SUITE(register_tests)
