// SPDX-License-Identifier: MIT
/* The Overlap Analysis the timeline and the db share; the db itself. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/db.h"
#include "export/overlap.h"
#include "common/fsutil.h"
#include "unit.h"

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
	CU_ASSERT_EQUAL(profdata_op_named(p, name, strlen(name),
					  profdata_type_of_name(name, strlen(name)), 0,
					  &t->op), 0);
}

/* A window without tasks yet, room for 16. */
static struct profdata *no_tasks(void)
{
	struct profdata *p = calloc(1, sizeof(*p));

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->tasks = calloc(16, sizeof(*p->tasks));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->tasks);
	p->meta.rank_id = -1;
	return p;
}

/* Two devices' tasks: copies and overlapping, nested, touching kernels. */
static struct profdata *make_tasks(void)
{
	struct profdata *p = no_tasks();

	add_task(p, 0, "MEMCPY_ASYNC", 100, 150);
	add_task(p, 0, "matmul", 150, 250);
	add_task(p, 0, "relu", 200, 300);
	add_task(p, 0, "matmul", 400, 500);
	add_task(p, 0, "relu", 420, 450);
	add_task(p, 0, "MEMCPY_ASYNC", 450, 600);
	add_task(p, 1, "relu", 10, 20);
	add_task(p, 1, "relu", 20, 30);
	return p;
}

static void free_tasks(struct profdata *p)
{
	strtab_free(&p->names);
	free(p->tasks);
	free(p->ops);
	free(p->op_slots);
	free(p);
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
	struct profdata *p = make_tasks();
	struct seen s = { .n = 0 };
	int i;

	CU_ASSERT_EQUAL(overlap_each(p, record, &s), 0);
	CU_ASSERT_EQUAL(s.n, 6);
	for (i = 0; i < s.n && i < 6; i++)
		CU_ASSERT(!memcmp(s.at[i], want[i], sizeof(want[i])));
	CU_ASSERT_STRING_EQUAL(overlap_name(OVERLAP_COMM_NOT_OVERLAPPED),
			       "Communication(Not Overlapped)");
	CU_ASSERT_STRING_EQUAL(overlap_name(OVERLAP_FREE), "Free");
	free_tasks(p);
}

/*
 * Collectives: Communication is their union; what of it no kernel hides
 * is Not Overlapped; Computing, Not Overlapped and Free tile the span.
 */
static void test_overlap_comm(void)
{
	static const uint64_t want[][4] = {
		{ 0, OVERLAP_COMPUTE, 100, 200 },
		{ 0, OVERLAP_COMMUNICATION, 150, 400 },	/* two collectives touching */
		{ 0, OVERLAP_COMM_NOT_OVERLAPPED, 200, 250 },
		{ 0, OVERLAP_COMPUTE, 250, 300 },	/* a kernel inside them */
		{ 0, OVERLAP_COMM_NOT_OVERLAPPED, 300, 400 },
		{ 0, OVERLAP_FREE, 400, 500 },
		{ 0, OVERLAP_COMPUTE, 500, 600 },
		{ 0, OVERLAP_FREE, 600, 700 },
		{ 0, OVERLAP_COMMUNICATION, 700, 800 },	/* after a gap */
		{ 0, OVERLAP_COMM_NOT_OVERLAPPED, 700, 800 },
		{ 0, OVERLAP_FREE, 800, 900 },		/* a copy last */
	};
	struct profdata *p = no_tasks();
	struct seen s = { .n = 0 };
	uint64_t tiled = 0;
	int i;

	add_task(p, 0, "matmul", 100, 200);
	add_task(p, 0, "hcom_allReduce_", 150, 300);
	add_task(p, 0, "relu", 250, 300);
	add_task(p, 0, "hcom_allGather_", 300, 400);
	add_task(p, 0, "matmul", 500, 600);
	add_task(p, 0, "hcom_allReduce_", 700, 800);
	add_task(p, 0, "MEMCPY_ASYNC", 750, 900);
	CU_ASSERT_EQUAL(overlap_each(p, record, &s), 0);
	CU_ASSERT_EQUAL(s.n, 11);
	for (i = 0; i < s.n && i < 11; i++) {
		CU_ASSERT(!memcmp(s.at[i], want[i], sizeof(want[i])));
		if (s.at[i][1] != OVERLAP_COMMUNICATION)
			tiled += s.at[i][3] - s.at[i][2];
	}
	CU_ASSERT_EQUAL(tiled, 900 - 100);
	free_tasks(p);
}

static long long count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	long long n = -1;

	CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

static int find_db(int dir, const char *name, void *ctx)
{
	(void)dir;
	if (!strncmp(name, "msprof_", 7) && strlen(name) == 24)
		snprintf(ctx, NAME_MAX + 1, "%s", name);
	return 0;
}

static int count_entries(int dir, const char *name, void *ctx)
{
	(void)dir;
	(void)name;
	(*(int *)ctx)++;
	return 0;
}

/* A new directory from the template dir, open as p's window. */
static int window_dir(char *dir, struct profdata *p)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	p->dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(p->dirfd >= 0);
	return p->dirfd;
}

/* The db an export left in dir (open as fd), read-only; name receives its name. */
static sqlite3 *open_db(const char *dir, int fd, char *name)
{
	char path[PATH_MAX];
	sqlite3 *db;

	fsutil_dir_for_each(fd, find_db, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	CU_ASSERT_EQUAL_FATAL(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	return db;
}

/* The program's two steps: the db written whole, then renamed in. */
static int write_db(int fd, const char *dir, const struct profdata *p)
{
	struct db_file f;

	return db_write(fd, dir, p, &f) ?: db_commit(fd, dir, &f);
}

/*
 * More tasks than a batch of inserts (db_insert.c's BATCH, 64) holds: whole
 * batches and the rest, every row in its place.
 */
static void test_db_batches(void)
{
	char dir[] = "/tmp/msprof-unit-db.XXXXXX", name[NAME_MAX + 1] = "";
	struct profdata *p = calloc(1, sizeof(*p));
	sqlite3 *db;
	int fd, i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->tasks = calloc(150, sizeof(*p->tasks));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->tasks);
	for (i = 0; i < 150; i++)
		add_task(p, 0, i % 2 ? "relu" : "matmul", 100 * i, 100 * i + 50);
	fd = window_dir(dir, p);
	CU_ASSERT_EQUAL(write_db(fd, dir, p), 0);
	db = open_db(dir, fd, name);
	CU_ASSERT_EQUAL(count(db, "SELECT count(*) FROM TASK WHERE globalTaskId = rowid - 1 AND endNs - startNs = 50"), 150);
	CU_ASSERT_EQUAL(count(db, "SELECT max(startNs) - min(startNs) FROM TASK"), 14900);
	CU_ASSERT_EQUAL(count(db, "SELECT count(*) FROM COMPUTE_TASK_INFO c JOIN STRING_IDS s ON c.name = s.id WHERE s.value = 'relu' AND c.globalTaskId % 2 = 1"), 75);
	/* Each kernel computing, and a gap (free) between two. */
	CU_ASSERT_EQUAL(count(db, "SELECT count(*) FROM OVERLAP_ANALYSIS"), 299);
	sqlite3_close(db);
	unlinkat(fd, name, 0);
	close(fd);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
	free_tasks(p);
}

/*
 * The db of a window without host records: every task in TASK, the
 * kernels in COMPUTE_TASK_INFO, the copies (their calls unseen) in
 * MEMCPY_INFO; a db discarded leaves nothing; an earlier export's db
 * replaced, other files kept; a directory others can write refused with
 * nothing made.
 */
static void test_db_export(void)
{
	char dir[] = "/tmp/msprof-unit-db.XXXXXX", name[NAME_MAX + 1] = "";
	struct profdata *p = make_tasks();
	int fd = window_dir(dir, p), n = 0;
	struct db_file f;
	sqlite3 *db;

	CU_ASSERT_EQUAL(db_write(fd, dir, p, &f), 0);
	db_discard(fd, &f);
	fsutil_dir_for_each(fd, count_entries, &n);
	CU_ASSERT_EQUAL(n, 0);
	close(openat(fd, "msprof_20200101000000.db", O_CREAT | O_WRONLY, 0600));
	close(openat(fd, "msprof_2020.db", O_CREAT | O_WRONLY, 0600));
	CU_ASSERT_EQUAL(write_db(fd, dir, p), 0);
	CU_ASSERT_EQUAL(faccessat(fd, "msprof_20200101000000.db", F_OK, 0), -1);
	CU_ASSERT_EQUAL(faccessat(fd, "msprof_2020.db", F_OK, 0), 0);
	fsutil_dir_for_each(fd, count_entries, &n);
	CU_ASSERT_EQUAL(n, 2);	/* the db and msprof_2020.db: no temporary file */
	db = open_db(dir, fd, name);
	CU_ASSERT_EQUAL(count(db, "SELECT count(*) FROM TASK"), 8);
	CU_ASSERT_EQUAL(count(db, "SELECT count(*) FROM COMPUTE_TASK_INFO"), 6);
	CU_ASSERT_EQUAL(count(db, "SELECT count(*) FROM MEMCPY_INFO WHERE size IS NULL AND memcpyOperation = 65535"), 2);
	CU_ASSERT_EQUAL(count(db, "SELECT count(*) FROM OVERLAP_ANALYSIS"), 6);
	CU_ASSERT_EQUAL(count(db, "SELECT count(*) FROM RANK_DEVICE_MAP WHERE rankId = -1"), 2);
	CU_ASSERT_EQUAL(count(db, "SELECT count(*) FROM CANN_API"), 0);
	CU_ASSERT_EQUAL(count(db, "SELECT count(*) FROM STRING_IDS s JOIN COMPUTE_TASK_INFO c ON c.name = s.id WHERE s.value = 'matmul'"), 2);
	sqlite3_close(db);

	CU_ASSERT_EQUAL(fchmod(fd, 0777), 0);
	CU_ASSERT_EQUAL(write_db(fd, dir, p), -EPERM);
	CU_ASSERT_EQUAL(db_remove_stale(fd, NULL), -EPERM);
	n = 0;
	fsutil_dir_for_each(fd, count_entries, &n);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(fchmod(fd, 0700), 0);
	CU_ASSERT_EQUAL(db_remove_stale(fd, NULL), 0);
	CU_ASSERT_EQUAL(faccessat(fd, name, F_OK, 0), -1);
	unlinkat(fd, "msprof_2020.db", 0);
	close(fd);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
	free_tasks(p);
}

/*
 * A device of CUDA kernels (task type KERNEL) is said to be one in
 * NPU_INFO; one of NPU tasks is the simulated chip.
 */
static void test_db_cuda_device(void)
{
	char dir[] = "/tmp/msprof-unit-db.XXXXXX", name[NAME_MAX + 1] = "";
	struct profdata *p = no_tasks();
	sqlite3 *db;
	int fd;

	add_task(p, 0, "matmul", 100, 200);
	p->tasks[p->ntasks] = (struct devtask){ .device = 1, .start_ns = 100,
						.end_ns = 200 };
	CU_ASSERT_EQUAL(profdata_op_named(p, "vecAdd", 6, DT_KERNEL, 1,
					  &p->tasks[p->ntasks++].op), 0);
	fd = window_dir(dir, p);
	CU_ASSERT_EQUAL(write_db(fd, dir, p), 0);
	db = open_db(dir, fd, name);
	CU_ASSERT_EQUAL(count(db, "SELECT count(*) FROM NPU_INFO WHERE id = 0 AND name = 'Ascend910B'"), 1);
	CU_ASSERT_EQUAL(count(db, "SELECT count(*) FROM NPU_INFO WHERE id = 1 AND name = 'CUDA'"), 1);
	sqlite3_close(db);
	unlinkat(fd, name, 0);
	close(fd);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
	free_tasks(p);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "overlap: Computing is the union of ops, Free the rest", test_overlap },
		{ "overlap: communication, the part not hidden, the span tiled", test_overlap_comm },
		CU_TEST_INFO_NULL,
	};
	/* The db is made with openat2(), as is every file beneath a window. */
	static const CU_TestInfo needy[] = {
		{ "db: tasks, copies, overlap; an old db replaced", test_db_export },
		{ "db: more rows than a batch of inserts, in order", test_db_batches },
		{ "db: a device of CUDA kernels is said to be one", test_db_cuda_device },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("db and overlap", tests, needy,
				 unit_no_openat2(), skipped);
}

UNIT_SUITE(register_tests)
