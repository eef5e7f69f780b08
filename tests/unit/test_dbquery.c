// SPDX-License-Identifier: MIT
/* --type=db and --query=on on the command line; the Overlap Analysis. */
#include <stdlib.h>
#include <string.h>

#include "export/overlap.h"
#include "options.h"
#include "unit.h"

static char err[256];

static int parse(struct msprof_opts *o, char **args)
{
	static char *argv[16];	/* opts_parse keeps pointers into argv */
	int argc = 1;

	argv[0] = "msprof";
	while (*args)
		argv[argc++] = *args++;
	err[0] = '\0';
	return opts_parse(o, argc, argv, err, sizeof(err));
}

static void test_type(void)
{
	char *db[] = { "--export=on", "--type=db", "--output=/tmp/x", NULL };
	char *text[] = { "--export=on", "--type=text", NULL };
	char *none[] = { "--export=on", NULL };
	struct msprof_opts o;

	CU_ASSERT_EQUAL(parse(&o, db), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_EXPORT);
	CU_ASSERT(o.db);
	CU_ASSERT_EQUAL(parse(&o, text), 0);
	CU_ASSERT(!o.db);
	CU_ASSERT_EQUAL(parse(&o, none), 0);
	CU_ASSERT(!o.db);
}

/* One line naming the problem, for each. */
static void expect_error(char **args, const char *says)
{
	struct msprof_opts o;

	CU_ASSERT_NOT_EQUAL(parse(&o, args), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, says));
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	opts_free(&o);
}

static void test_type_errors(void)
{
	char *bad[] = { "--export=on", "--type=csv", NULL };
	char *empty[] = { "--export=on", "--type=", NULL };
	char *alone[] = { "--type=db", NULL };
	char *dyn[] = { "--dynamic=on", "--pid=1", "--type=db", NULL };

	expect_error(bad, "--type takes text or db, not 'csv'");
	expect_error(empty, "--type takes text or db, not ''");
	expect_error(alone, "--type=db goes with --export=on");
	expect_error(dyn, "--type=db goes with --export=on");
}

static void test_query(void)
{
	char *q[] = { "--query=on", "--output=/tmp/x", NULL };
	char *off[] = { "--query=off", "--export=on", NULL };
	char *exp[] = { "--query=on", "--export=on", NULL };
	char *pid[] = { "--query=on", "--dynamic=on", "--pid=3", NULL };
	char *bad[] = { "--query=yes", NULL };
	struct msprof_opts o;

	CU_ASSERT_EQUAL(parse(&o, q), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_QUERY);
	CU_ASSERT_STRING_EQUAL(o.output, "/tmp/x");
	CU_ASSERT_EQUAL(parse(&o, off), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_EXPORT);
	expect_error(exp, "--query=on cannot be combined with --export");
	expect_error(pid, "--query=on cannot be combined");
	expect_error(bad, "--query takes on or off, not 'yes'");
}

struct seen {
	uint64_t at[32][4];	/* device, kind, start, end */
	int n;
};

static int record(uint32_t device, enum overlap_kind kind, uint64_t start,
		  uint64_t end, void *ctx)
{
	struct seen *s = ctx;

	CU_ASSERT_FATAL(s->n < 32);
	s->at[s->n][0] = device;
	s->at[s->n][1] = kind;
	s->at[s->n][2] = start;
	s->at[s->n][3] = end;
	s->n++;
	return 0;
}

static void add_task(struct profdata *p, uint32_t dev, const char *name,
		     uint64_t start, uint64_t end)
{
	struct devtask *t = &p->tasks[p->ntasks++];

	memset(t, 0, sizeof(*t));
	t->device = dev;
	t->start_ns = start;
	t->end_ns = end;
	CU_ASSERT_EQUAL(strtab_intern(&p->names, name, strlen(name), &t->name), 0);
}

/*
 * Computing is the union of kernels; copies count in the device's span
 * (so as Free), as msprof counts only ops as computing.
 */
static void test_overlap(void)
{
	static const uint64_t want[][4] = {
		{ 0, OVERLAP_FREE, 100, 150 },		/* a copy first */
		{ 0, OVERLAP_COMPUTE, 150, 300 },	/* two kernels overlapping */
		{ 0, OVERLAP_FREE, 300, 400 },
		{ 0, OVERLAP_COMPUTE, 400, 500 },	/* one inside another */
		{ 0, OVERLAP_FREE, 500, 600 },		/* a copy last */
		{ 1, OVERLAP_COMPUTE, 10, 30 },		/* touching kernels merge */
	};
	struct profdata *p = calloc(1, sizeof(*p));
	struct seen s = { .n = 0 };
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->tasks = calloc(16, sizeof(*p->tasks));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->tasks);
	add_task(p, 0, "MEMCPY_ASYNC", 100, 150);
	add_task(p, 0, "matmul", 150, 250);
	add_task(p, 0, "relu", 200, 300);
	add_task(p, 0, "matmul", 400, 500);
	add_task(p, 0, "relu", 420, 450);
	add_task(p, 0, "MEMCPY_ASYNC", 450, 600);
	add_task(p, 1, "relu", 10, 20);
	add_task(p, 1, "relu", 20, 30);
	CU_ASSERT_EQUAL(overlap_each(p, record, &s), 0);
	CU_ASSERT_EQUAL(s.n, 6);
	for (i = 0; i < s.n && i < 6; i++)
		CU_ASSERT(!memcmp(s.at[i], want[i], sizeof(want[i])));
	CU_ASSERT_STRING_EQUAL(overlap_name(OVERLAP_COMM_NOT_OVERLAPPED),
			       "Communication(Not Overlapped)");
	CU_ASSERT_STRING_EQUAL(overlap_name(OVERLAP_FREE), "Free");
	strtab_free(&p->names);
	free(p->tasks);
	free(p);
}

int register_dbquery_tests(void)
{
	static const CU_TestInfo tests[] = {
		{ "--type=db and --type=text", test_type },
		{ "--type: bad values, without --export", test_type_errors },
		{ "--query=on and what it cannot go with", test_query },
		{ "overlap: Computing is the union of ops, Free the rest", test_overlap },
		CU_TEST_INFO_NULL,
	};

	return add_suite("db and query", tests);
}
