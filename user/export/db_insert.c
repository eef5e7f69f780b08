// SPDX-License-Identifier: MIT
/*
 * The db's inserts: one prepared statement a table, and its rows of
 * integers kept and inserted a batch at a time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "db_parts.h"

/*
 * Rows of integers are inserted up to BATCH at a time, by one statement
 * of that many rows: what a statement costs whatever its size (its
 * start, its end, its reset) was most of what an insert of one row cost.
 */
#define BATCH		64

/* An error of sqlite's as -errno, for the one message at the edge. */
int db_err(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
		return -EACCES;
	}
	return -EIO;
}

int db_exec(struct dbw *w, const char *sql)
{
	int rc = sqlite3_exec(w->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_err(rc);
}

int db_str_id(struct dbw *w, const char *s, int64_t *id)
{
	uint32_t n;
	int err = strtab_intern(&w->strs, s, strlen(s), &n);

	*id = n;
	return err;
}

static int step(sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : db_err(rc);
}

/* Binds n integers (DB_NULL: NULL) to s's parameters from the first. */
static void bind_ints(sqlite3_stmt *s, const int64_t *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i] == DB_NULL)
			sqlite3_bind_null(s, i + 1);
		else
			sqlite3_bind_int64(s, i + 1, v[i]);
}

/* "INSERT INTO <t> VALUES (?,...),..." of a batch's rows. */
static int prepare_batch(struct dbw *w, int t)
{
	const struct batch *b = &w->b[t];
	size_t len = 64 + strlen(b->table) +
		     (size_t)b->size * (2 * (size_t)b->ncols + 2);
	char *sql = malloc(len), *at;
	int i, j, rc;

	if (!sql)
		return -ENOMEM;
	at = sql + snprintf(sql, len, "INSERT INTO %s VALUES ", b->table);
	for (i = 0; i < b->size; i++) {
		*at++ = i ? ',' : ' ';
		*at++ = '(';
		for (j = 0; j < w->b[t].ncols; j++) {
			*at++ = '?';
			*at++ = j + 1 < w->b[t].ncols ? ',' : ')';
		}
	}
	*at = '\0';
	rc = sqlite3_prepare_v2(w->db, sql, -1, &w->b[t].st, NULL);
	free(sql);
	return rc == SQLITE_OK ? 0 : db_err(rc);
}

/* The rows kept for table t into it: a full batch at once, else one by one. */
static int flush(struct dbw *w, int t)
{
	struct batch *b = &w->b[t];
	int i, n = b->nrows, err = 0;

	b->nrows = 0;
	if (n == b->size && n > 1) {
		err = b->st ? 0 : prepare_batch(w, t);
		if (!err)
			bind_ints(b->st, b->v, n * b->ncols);
		return err ?: step(b->st);
	}
	for (i = 0; i < n && !err; i++) {
		bind_ints(w->st[t], b->v + i * b->ncols, b->ncols);
		err = step(w->st[t]);
	}
	return err;
}

/* The rows every table still keeps. */
int db_flush_all(struct dbw *w)
{
	size_t t;
	int err = 0;

	for (t = 0; t < T_NTABLES && !err; t++)
		err = flush(w, (int)t);
	return err;
}

/* A row of integers (DB_NULL: NULL) into table t, kept for its batch. */
int db_row(struct dbw *w, int t, const int64_t *v, int n)
{
	struct batch *b = &w->b[t];

	if (n != b->ncols)
		return -EINVAL;	/* a writer out of step with the table */
	if (!b->v) {
		b->v = malloc(sizeof(*b->v) * (size_t)b->size * (size_t)n);
		if (!b->v)
			return -ENOMEM;
	}
	memcpy(b->v + b->nrows * n, v, sizeof(*v) * (size_t)n);
	return ++b->nrows == b->size ? flush(w, t) : 0;
}

int db_row_reals(struct dbw *w, int t, int64_t ts, const double *v, int n)
{
	sqlite3_stmt *s = w->st[t];
	int i;

	if (n + 1 != w->b[t].ncols)
		return -EINVAL;	/* a writer out of step with the table */
	sqlite3_bind_int64(s, 1, ts);
	for (i = 0; i < n; i++)
		sqlite3_bind_double(s, i + 2, v[i]);
	return step(s);
}

/* A row of two columns, each an integer (text NULL) or a text. */
int db_row2(struct dbw *w, int t, int64_t a, const char *at,
	    const char *b)
{
	sqlite3_stmt *s = w->st[t];

	if (at)
		sqlite3_bind_text(s, 1, at, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(s, 1, a);
	sqlite3_bind_text(s, 2, b, -1, SQLITE_STATIC);
	return step(s);
}

int db_prepare_insert(struct dbw *w, int t, const char *name, int ncols)
{
	/* Parameters a statement may have: 32766 since sqlite 3.32, 999 before. */
	int vars = sqlite3_limit(w->db, SQLITE_LIMIT_VARIABLE_NUMBER, -1);
	char sql[1024], marks[64];
	int j, rc;

	w->b[t].table = name;
	w->b[t].ncols = ncols;
	w->b[t].size = BATCH * ncols <= vars ? BATCH :
		       ncols <= vars ? vars / ncols : 1;
	for (j = 0; j < ncols; j++)
		memcpy(marks + 2 * j, "?,", 2);
	marks[2 * ncols - 1] = 0;	/* the last comma */
	snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES (%s)", name, marks);
	rc = sqlite3_prepare_v2(w->db, sql, -1, &w->st[t], NULL);
	return rc == SQLITE_OK ? 0 : db_err(rc);
}
