// SPDX-License-Identifier: MIT
/*
 * --type=db: a window as msprof's SQLite export (MP csrc/application/
 * database/msprof_db.cpp), times as epoch ns, names as STRING_IDS ids.
 * This file makes the db file: under a temporary name, reached through
 * the PROF_ directory's descriptor, filled in one transaction (the
 * tables: db_schema.c, their rows: db_rows.c), synced and renamed in.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "db_parts.h"
#include "common/err.h"
#include "common/fsutil.h"
#include "common/testpoint.h"

/*
 * Every table, in one transaction.  No file but the db itself: the
 * journal and sorts stay in memory (a failed db is removed whole, not
 * rolled back), and db_write's fsync makes it durable before the rename.
 * TASK's index is made with the table, so that it grows with the rows:
 * made after them, it sorted them all in memory (17 MiB a million).
 */
static int fill(struct dbw *w)
{
	int err;

	err = db_exec(w, "PRAGMA journal_mode=MEMORY") ?:
	      db_exec(w, "PRAGMA synchronous=OFF") ?:
	      db_exec(w, "PRAGMA temp_store=MEMORY") ?:
	      db_exec(w, "BEGIN") ?:
	      db_create_tables(w) ?:
	      db_exec(w, "CREATE INDEX TaskIndex ON TASK (startNs, globalTaskId)") ?:
	      db_write_enums(w) ?:
	      db_window_rows(w) ?:
	      db_flush_all(w);
	return err ?: db_exec(w, "COMMIT");
}

/*
 * SQLite would resolve the links of the name it is given into a path and
 * open that: ours, /proc/self/fd/<dir>/<name>, goes through the
 * directory we hold, which only the kernel may resolve.
 */
static int name_as_given(sqlite3_vfs *vfs, const char *name, int len,
			 char *out)
{
	(void)vfs;
	if (strlen(name) >= (size_t)len)
		return SQLITE_CANTOPEN;
	strcpy(out, name);
	return SQLITE_OK;
}

int db_open_at(int dirfd, const char *tmp, struct db_handle *h)
{
	char path[64 + NAME_MAX];
	int rc;

	h->vfs = *sqlite3_vfs_find(NULL);
	h->vfs.zName = "msprof-as-given";
	h->vfs.xFullPathname = name_as_given;
	h->db = NULL;
	rc = sqlite3_vfs_register(&h->vfs, 0);
	if (rc != SQLITE_OK)
		return db_err(rc);
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dirfd, tmp);
	rc = sqlite3_open_v2(path, &h->db, SQLITE_OPEN_READWRITE |
			     SQLITE_OPEN_NOFOLLOW |
			     SQLITE_OPEN_NOMUTEX, h->vfs.zName);
	if (rc != SQLITE_OK) {
		db_close(h);
		return db_err(rc);
	}
	return 0;
}

int db_close(struct db_handle *h)
{
	int err = sqlite3_close(h->db) != SQLITE_OK ? -EIO : 0;

	sqlite3_vfs_unregister(&h->vfs);
	h->db = NULL;
	return err;
}

/* Fills the empty file tmp (in dirfd) as the db. */
static int write_db(int dirfd, const char *tmp, const struct profdata *p)
{
	struct dbw w = { .p = p, .pid_hi = (int64_t)((uint64_t)(uint32_t)p->meta.pid << 32) };
	struct db_handle h;
	size_t i;
	int err;

	err = db_open_at(dirfd, tmp, &h);
	if (err)
		return err;
	w.db = h.db;
	err = fill(&w);
	for (i = 0; i < T_NTABLES; i++) {
		sqlite3_finalize(w.st[i]);
		sqlite3_finalize(w.b[i].st);
		free(w.b[i].v);
	}
	if (db_close(&h) && !err)
		err = -EIO;
	strtab_free(&w.strs);
	copy_calls_free(&w.copies);
	return err;
}

/* msprof_<14 digits>.db */
static bool is_db_name(const char *name)
{
	return !strncmp(name, "msprof_", 7) &&
	       strspn(name + 7, "0123456789") == 14 && !strcmp(name + 21, ".db");
}

struct stale_db {
	const char *keep;
	bool checked;
};

static int remove_one(int dirfd, const char *name, void *ctx)
{
	struct stale_db *s = ctx;
	int err;

	if (!is_db_name(name) || (s->keep && !strcmp(name, s->keep)))
		return 0;
	/* Only in a directory of ours, where nothing here is followed. */
	if (!s->checked) {
		err = fsutil_dir_check_ours(dirfd);
		if (err)
			return err;
		s->checked = true;
	}
	if (unlinkat(dirfd, name, 0) && errno != ENOENT)
		return -errno;
	return 0;
}

int db_remove_stale(int dirfd, const char *keep)
{
	struct stale_db s = { keep, false };

	return fsutil_dir_for_each(dirfd, remove_one, &s);
}

int db_write(int dirfd, const char *label, const struct profdata *p,
	     struct db_file *f)
{
	time_t now = time(NULL);
	struct tm tm;
	int fd, err;

	localtime_r(&now, &tm);
	strftime(f->name, sizeof(f->name), "msprof_%Y%m%d%H%M%S.db", &tm);
	err = fsutil_dir_check_ours(dirfd);
	if (err) {
		ERR("%s: no db written: the directory belongs to another user or others can write it: refused",
		    label);
		return err;
	}
	fd = fsutil_create_temp_at(dirfd, f->name, f->tmp, sizeof(f->tmp));
	if (fd < 0) {
		ERR("%s: cannot create %s: %s", label, f->name, strerror(-fd));
		return fd;
	}
	err = write_db(dirfd, f->tmp, p);
	if (!err && fsync(fd))
		err = -errno;
	close(fd);
	if (err) {
		unlinkat(dirfd, f->tmp, 0);
		ERR("%s: cannot write %s: %s", label, f->name, strerror(-err));
	}
	return err;
}

int db_commit(int dirfd, const char *label, const struct db_file *f)
{
	int err;

	testpoint("db-before-rename");
	if (renameat(dirfd, f->tmp, dirfd, f->name)) {
		err = -errno;
		unlinkat(dirfd, f->tmp, 0);
		ERR("%s: cannot write %s: %s", label, f->name, strerror(-err));
		return err;
	}
	printf("%s/%s\n", label, f->name);
	err = db_remove_stale(dirfd, f->name);
	if (err)
		ERR("%s: an earlier export's db is left: %s",
		    label, strerror(-err));
	return 0;
}

void db_discard(int dirfd, const struct db_file *f)
{
	unlinkat(dirfd, f->tmp, 0);
}

