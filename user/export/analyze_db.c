// SPDX-License-Identifier: MIT
/* communication_analyzer.db: the communication analysis as msprof's tables. */
#include <errno.h>
#include <stdio.h>

#include "analyze_db.h"
#include "db.h"

/*
 * No file but the db itself, as the export's db: the journal and sorts
 * stay in memory; a failed db is removed whole, not rolled back.
 */
static const char *const schema =
	"PRAGMA journal_mode=MEMORY;"
	"PRAGMA synchronous=OFF;"
	"PRAGMA temp_store=MEMORY;"
	"BEGIN;"
	"CREATE TABLE CommAnalyzerTime (hccl_op_name TEXT, group_name TEXT, "
	"start_timestamp NUMERIC, elapse_time NUMERIC, transit_time NUMERIC, "
	"wait_time NUMERIC, synchronization_time NUMERIC, idle_time NUMERIC);"
	"CREATE TABLE CommAnalyzerBandwidth (hccl_op_name TEXT, group_name TEXT, "
	"transport_type TEXT, transit_size NUMERIC, transit_time NUMERIC, "
	"bandwidth NUMERIC, large_packet_ratio NUMERIC, package_size NUMERIC, "
	"count NUMERIC, total_duration NUMERIC);"
	"CREATE TABLE CommAnalyzerMatrix (hccl_op_name TEXT, group_name TEXT, "
	"src_rank TEXT, dst_rank TEXT, transport_type TEXT, transit_size NUMERIC, "
	"transit_time NUMERIC, bandwidth NUMERIC);";

enum { ST_TIME, ST_BAND, ST_MATRIX, NST };

static const char *const inserts[NST] = {
	"INSERT INTO CommAnalyzerTime VALUES (?, ?, ?, ?, 0, ?, ?, 0)",
	/* Only transports with data get a row, as msprof's: shared memory's. */
	"INSERT INTO CommAnalyzerBandwidth VALUES (?, ?, 'SDMA', ?, 0, 0, 0, 0, 0, 0)",
	"INSERT INTO CommAnalyzerMatrix VALUES (?, ?, ?, ?, 'LOCAL', ?, 0, 0)",
};

static int run(sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : db_err(rc);
}

/* One op's rows: its time, its bytes, its one link (the JSON files'). */
static int op_rows(sqlite3_stmt **st, const struct profdata *p,
		   const struct comm_op *op)
{
	double ms = (double)(op->end_ns - op->start_ns) / 1e6;
	double mb = (double)comm_op_bytes(op) / 1e6;
	char name[MSPROF_REC_NAMES_MAX + 64], group[256], rank[16];
	int i, err = 0;

	comm_op_name(name, sizeof(name), p, op);
	comm_group_name(group, sizeof(group), p, op);
	snprintf(rank, sizeof(rank), "%d", p->meta.rank_id);
	for (i = 0; i < NST; i++) {
		sqlite3_bind_text(st[i], 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st[i], 2, group, -1, SQLITE_STATIC);
	}
	sqlite3_bind_double(st[ST_TIME], 3,
			    (double)profmeta_epoch_ns(&p->meta, op->start_ns) / 1e3);
	for (i = 4; i <= 6; i++)	/* elapse, wait, synchronization */
		sqlite3_bind_double(st[ST_TIME], i, ms);
	sqlite3_bind_double(st[ST_BAND], 3, mb);
	sqlite3_bind_text(st[ST_MATRIX], 3, rank, -1, SQLITE_STATIC);
	sqlite3_bind_text(st[ST_MATRIX], 4, rank, -1, SQLITE_STATIC);
	sqlite3_bind_double(st[ST_MATRIX], 5, mb);
	err = run(st[ST_TIME]);
	if (!err && mb > 0)
		err = run(st[ST_BAND]);
	return err ?: run(st[ST_MATRIX]);
}

int analyze_db_write(int dirfd, const char *tmp, const struct profdata *p,
		     const struct comm_ops *c)
{
	sqlite3_stmt *st[NST] = { 0 };
	struct db_handle h;
	size_t i;
	int err, rc;

	err = db_open_at(dirfd, tmp, &h);
	if (err)
		return err;
	rc = sqlite3_exec(h.db, schema, NULL, NULL, NULL);
	err = rc == SQLITE_OK ? 0 : db_err(rc);
	for (i = 0; i < NST && !err; i++) {
		rc = sqlite3_prepare_v2(h.db, inserts[i], -1, &st[i], NULL);
		err = rc == SQLITE_OK ? 0 : db_err(rc);
	}
	/* The ops the JSON files hold: those with a group. */
	for (i = 0; i < c->n && !err; i++)
		if (comm_op_grouped(&c->v[i]))
			err = op_rows(st, p, &c->v[i]);
	if (!err) {
		rc = sqlite3_exec(h.db, "COMMIT", NULL, NULL, NULL);
		err = rc == SQLITE_OK ? 0 : db_err(rc);
	}
	for (i = 0; i < NST; i++)
		sqlite3_finalize(st[i]);
	if (db_close(&h) && !err)
		err = -EIO;
	return err;
}
