// SPDX-License-Identifier: MIT
/*
 * --query=on: msprof's query table (MP analysis/msinterface/
 * msprof_query.py), one row per PROF_ directory.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/err.h"
#include "common/fsutil.h"
#include "common/printable.h"
#include "common/proflayout.h"
#include "profmeta.h"
#include "query.h"
#include "windows.h"

#define NCOLS 8

static const char *const headers[NCOLS] = {
	"Job Info", "Device ID", "Dir Name", "Collection Time",
	"Model ID", "Iteration Number", "Top Time Iteration", "Rank ID",
};

struct qrow {
	char cell[NCOLS][NAME_MAX + 1];
};

struct devs {
	unsigned int ids[64];
	size_t n;
};

static int add_device(int dir, const char *name, void *ctx)
{
	struct devs *d = ctx;
	char *end;
	unsigned long id;

	(void)dir;
	if (strncmp(name, PROFDIR_DEVICE_PREFIX, 7) || name[7] < '0' || name[7] > '9')
		return 0;
	id = strtoul(name + 7, &end, 10);
	if (*end || id > 0xffff || d->n == sizeof(d->ids) / sizeof(d->ids[0]))
		return 0;
	d->ids[d->n++] = (unsigned int)id;
	return 0;
}

static int by_id(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return (x > y) - (x < y);
}

/* "0,1": the window's device_N directories; "" for host data only, as msprof. */
static void device_cell(int fd, char *buf, size_t len)
{
	struct devs d = { .n = 0 };
	size_t i, at = 0;

	fsutil_dir_for_each(fd, add_device, &d);
	qsort(d.ids, d.n, sizeof(d.ids[0]), by_id);
	buf[0] = 0;
	for (i = 0; i < d.n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%u", i ? "," : "",
				       d.ids[i]);
}

/* collectionDateBegin's form: local "YYYY-MM-DD HH:MM:SS.uuuuuu". */
static void date_cell(const struct profmeta *m, char *buf, size_t len)
{
	time_t s = (time_t)(m->start.real_ns / 1000000000u);
	struct tm tm;
	char date[32];

	if (!m->start.real_ns || !localtime_r(&s, &tm)) {
		snprintf(buf, len, "N/A");
		return;
	}
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06llu", date,
		 (unsigned long long)(m->start.real_ns % 1000000000u / 1000));
}

/* The row of the window open as fd, named name; or -errno, said. */
static int query_one(int fd, const char *label, const char *name,
		     struct qrow *r)
{
	struct profmeta m;
	char why[256];
	int err = profmeta_read(&m, fd);

	if (err) {
		if (err == -ENOENT)
			snprintf(why, sizeof(why), "not a window (no metadata)");
		else
			profmeta_strerror(why, sizeof(why), err);
		ERR("%s: not queried: %s", label, why);
		return err;
	}
	/* info.json's jobInfo: msprof writes "NA" when no job is named. */
	snprintf(r->cell[0], sizeof(r->cell[0]), "NA");
	device_cell(fd, r->cell[1], sizeof(r->cell[1]));
	snprintf(r->cell[2], sizeof(r->cell[2]), "%.*s", NAME_MAX, name);
	printable(r->cell[2]);
	date_cell(&m, r->cell[3], sizeof(r->cell[3]));
	/* No step trace is recorded: no models or iterations to name. */
	snprintf(r->cell[4], sizeof(r->cell[4]), "N/A");
	snprintf(r->cell[5], sizeof(r->cell[5]), "N/A");
	snprintf(r->cell[6], sizeof(r->cell[6]), "N/A");
	snprintf(r->cell[7], sizeof(r->cell[7]), "%d", m.rank_id);
	return 0;
}

/* msprof's order: by job, then collection time. */
static int by_job_time(const void *a, const void *b)
{
	const struct qrow *x = a, *y = b;

	return strcmp(x->cell[0], y->cell[0]) ?: strcmp(x->cell[3], y->cell[3]);
}

/* Each cell padded to its column's widest, then a tab; a blank line after. */
static void print_table(const struct qrow *rows, size_t n)
{
	size_t w[NCOLS], i, c;

	for (c = 0; c < NCOLS; c++)
		w[c] = strlen(headers[c]);
	for (i = 0; i < n; i++)
		for (c = 0; c < NCOLS; c++)
			if (strlen(rows[i].cell[c]) > w[c])
				w[c] = strlen(rows[i].cell[c]);
	for (c = 0; c < NCOLS; c++)
		printf("%-*s\t", (int)w[c], headers[c]);
	fputs("\n\n", stdout);
	for (i = 0; i < n; i++) {
		for (c = 0; c < NCOLS; c++)
			printf("%-*s\t", (int)w[c], rows[i].cell[c]);
		fputs("\n\n", stdout);
	}
}

static const char *base_name(const char *dir, char *buf, size_t len)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	snprintf(buf, len, "%.*s", (int)n, dir);
	return strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf;
}

/* The rows found so far. */
struct query_rows {
	struct qrow *rows;
	size_t n, cap;
};

static int query_window(int fd, const char *label, void *ctx)
{
	struct query_rows *q = ctx;
	char buf[PATH_MAX];
	int err;

	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 16;
		struct qrow *rows = realloc(q->rows, cap * sizeof(*rows));

		if (!rows) {
			ERR("%s: not queried: %s", label, strerror(ENOMEM));
			return -ENOMEM;
		}
		q->rows = rows;
		q->cap = cap;
	}
	err = query_one(fd, label, base_name(label, buf, sizeof(buf)),
			&q->rows[q->n]);
	q->n += !err;
	return err;
}

int query_run(const char *dir)
{
	struct query_rows q = { 0 };
	struct window_walk w = {
		.verb = "query", .done = "queried", .one = query_window, .ctx = &q,
	};
	int err = windows_walk(dir, &w);

	if (q.n) {
		qsort(q.rows, q.n, sizeof(*q.rows), by_job_time);
		print_table(q.rows, q.n);
	}
	free(q.rows);
	return err;
}
