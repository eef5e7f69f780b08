/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_DB_PARTS_H
#define MSPROF_DB_PARTS_H

/*
 * What the db's writers share (db.c drives them): the tables' numbers,
 * the state of one db being written, its inserts (db_insert.c), msprof's
 * tables (db_schema.c) and the window's rows (db_rows.c).
 */
#include <sqlite3.h>
#include <stdint.h>

#include "copy_calls.h"
#include "profdata.h"
#include "strtab.h"

/* The tables, in msprof's column order; an enum names each. */
enum {
	T_STRING_IDS, T_META_DATA, T_SESSION_TIME_INFO, T_NPU_INFO,
	T_RANK_DEVICE_MAP, T_HOST_INFO, T_TASK, T_COMPUTE_TASK_INFO,
	T_COMM_SCHEDULE, T_COMM_TASK, T_COMMUNICATION_OP, T_CANN_API,
	T_TASK_PMU_INFO, T_MSTX_EVENTS, T_MEMCPY_INFO, T_OSRT_API,
	T_OVERLAP_ANALYSIS, T_PYTORCH_CALLCHAINS,
	T_CPU_USAGE, T_HOST_MEM_USAGE, T_HOST_DISK_USAGE, T_HOST_NETWORK_USAGE,
	T_THREAD_STATE,		/* ours: thread states (--host-sys=sched) */
	T_ENUM_FIRST,
	T_NTABLES = T_ENUM_FIRST + 10,	/* the ENUM_* tables after */
};

/* No value: SQL NULL. */
#define DB_NULL INT64_MIN

struct batch {
	const char *table;	/* its name */
	sqlite3_stmt *st;	/* size rows; prepared at the first full batch */
	int64_t *v;		/* the rows kept, ncols each */
	int nrows;
	int size;		/* BATCH, or fewer where sqlite takes fewer parameters */
	int ncols;
};

struct dbw {
	sqlite3 *db;
	const struct profdata *p;
	sqlite3_stmt *st[T_NTABLES];
	struct batch b[T_NTABLES];
	struct strtab strs;
	int64_t pid_hi;		/* globalTid's high half */
	struct copy_calls copies;
	int64_t overlap_id;
};


/* db_insert.c: statements, rows kept and inserted a batch at a time. */
int db_exec(struct dbw *w, const char *sql);
/* The STRING_IDS id of s, interned. */
int db_str_id(struct dbw *w, const char *s, int64_t *id);
/* Table t (name, ncols columns): its insert prepared, its batch sized. */
int db_prepare_insert(struct dbw *w, int t, const char *name, int ncols);
/* A row of integers (DB_NULL: NULL) into table t, kept for its batch. */
int db_row(struct dbw *w, int t, const int64_t *v, int n);
/* A row of an integer (a time) and n reals into table t, at once. */
int db_row_reals(struct dbw *w, int t, int64_t ts, const double *v, int n);
/* A row of two columns, each an integer (text NULL) or a text. */
int db_row2(struct dbw *w, int t, int64_t a, const char *at, const char *b);
/* The rows every table still keeps. */
int db_flush_all(struct dbw *w);

/* db_schema.c: msprof's tables made (and their inserts), its ENUM rows. */
int db_create_tables(struct dbw *w);
int db_write_enums(struct dbw *w);

/* db_rows.c: every table's rows of the window, STRING_IDS last. */
int db_window_rows(struct dbw *w);
/* db_mstx.c: MSTX_EVENTS, the user marks. */
int db_mstx_rows(struct dbw *w);
/* db_hostsys.c: CPU_USAGE, HOST_MEM_USAGE, HOST_DISK_USAGE, HOST_NETWORK_USAGE. */
int db_hostsys_rows(struct dbw *w);
/* db_tstate.c: THREAD_STATE, the thread states' spans. */
int db_tstate_rows(struct dbw *w);
/* db_osrt.c: OSRT_API's rows of the OS runtime calls (--host-sys=osrt). */
int db_osrt_rows(struct dbw *w);

#endif
