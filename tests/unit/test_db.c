// SPDX-License-Identifier: MIT
/* The db an export writes (export/db.c). */
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
#include "common/fsutil.h"
#include "tasks_fixture.h"
#include "unit.h"

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

/* Closes the db, removes it and the window dir (open as fd), frees p. */
static void drop_window(sqlite3 *db, int fd, const char *dir, const char *name,
			struct profdata *p)
{
	sqlite3_close(db);
	unlinkat(fd, name, 0);
	close(fd);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
	unit_free_tasks(p);
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
		unit_add_task(p, 0, i % 2 ? "relu" : "matmul", 100 * i, 100 * i + 50);
	fd = window_dir(dir, p);
	CU_ASSERT_EQUAL(write_db(fd, dir, p), 0);
	db = open_db(dir, fd, name);
	CU_ASSERT_EQUAL(count(db, "SELECT count(*) FROM TASK WHERE globalTaskId = rowid - 1 AND endNs - startNs = 50"), 150);
	CU_ASSERT_EQUAL(count(db, "SELECT max(startNs) - min(startNs) FROM TASK"), 14900);
	CU_ASSERT_EQUAL(count(db, "SELECT count(*) FROM COMPUTE_TASK_INFO c JOIN STRING_IDS s ON c.name = s.id WHERE s.value = 'relu' AND c.globalTaskId % 2 = 1"), 75);
	/* Each kernel computing, and a gap (free) between two. */
	CU_ASSERT_EQUAL(count(db, "SELECT count(*) FROM OVERLAP_ANALYSIS"), 299);
	drop_window(db, fd, dir, name, p);
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
	struct profdata *p = unit_two_devices_tasks();
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
	unit_free_tasks(p);
}

/*
 * A device of CUDA kernels (task type KERNEL) is said to be one in
 * NPU_INFO; one of NPU tasks is the simulated chip.
 */
static void test_db_cuda_device(void)
{
	char dir[] = "/tmp/msprof-unit-db.XXXXXX", name[NAME_MAX + 1] = "";
	struct profdata *p = unit_no_tasks();
	sqlite3 *db;
	int fd;

	unit_add_task(p, 0, "matmul", 100, 200);
	p->tasks[p->ntasks] = (struct devtask){ .device = 1, .start_ns = 100,
						.end_ns = 200 };
	CU_ASSERT_EQUAL(profdata_op_named(p, "vecAdd", 6, DT_KERNEL, 1,
					  &p->tasks[p->ntasks++].op), 0);
	fd = window_dir(dir, p);
	CU_ASSERT_EQUAL(write_db(fd, dir, p), 0);
	db = open_db(dir, fd, name);
	CU_ASSERT_EQUAL(count(db, "SELECT count(*) FROM NPU_INFO WHERE id = 0 AND name = 'Ascend910B'"), 1);
	CU_ASSERT_EQUAL(count(db, "SELECT count(*) FROM NPU_INFO WHERE id = 1 AND name = 'CUDA'"), 1);
	drop_window(db, fd, dir, name, p);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo none[] = { CU_TEST_INFO_NULL };
	/* The db is made with openat2(), as is every file beneath a window. */
	static const CU_TestInfo needy[] = {
		{ "db: tasks, copies, overlap; an old db replaced", test_db_export },
		{ "db: more rows than a batch of inserts, in order", test_db_batches },
		{ "db: a device of CUDA kernels is said to be one", test_db_cuda_device },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("db", none, needy,
				 unit_no_openat2(), skipped);
}

UNIT_SUITE(register_tests)
