// SPDX-License-Identifier: MIT
/*
 * os_runtime_statistic's rows as Huawei's analysis makes them from
 * host_syscall.data and host_pthreadcall.data (host-sys-formats.md §3.5):
 * the same files in the same order, each line taken or passed over as it
 * takes it (common/osrt_text.c), each duration the double it computes,
 * added in the order its SQLite adds them (rows as inserted), so that its
 * sums, averages and shares come out bit for bit.  The files are anyone's
 * (a real msprof's too): every line is bounded, and reading stops where
 * the analysis would (bytes that are no UTF-8).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/growarr.h"
#include "common/osrt_text.h"
#include "common/proflayout.h"
#include "common/safe_open.h"
#include "osrt.h"

/* Longer lines are passed over (msprof's own are under 512 bytes). */
#define LINE_MAX_BYTES	(64u << 10)
#define MAX_FILES	65536

struct text_file {
	unsigned long long slice;
	size_t seen;		/* its place in the directory's listing */
	bool perf;
	char name[NAME_MAX + 1];
};

struct listing {
	int dir;
	struct text_file *v;
	size_t n, cap;
};

/*
 * The analysis's regexes match at the name's start; ".done", ".complete"
 * and ".zip" names, and any with a "<name>.complete" beside it, it skips.
 */
static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && !strcmp(s + n - m, end);
}

static int pick(int dir, const char *name, void *ctx)
{
	static const char *const kinds[] = { "host_syscall.data.slice_",
					     "host_pthreadcall.data.slice_" };
	char complete[NAME_MAX + 16];
	struct listing *l = ctx;
	struct text_file *f;
	const char *num;
	size_t k;

	(void)dir;
	for (k = 0; k < 2 && strncmp(name, kinds[k], strlen(kinds[k])); k++)
		;
	if (k == 2 || !(num = name + strlen(kinds[k]), *num >= '0' && *num <= '9') ||
	    ends_with(name, ".done") || ends_with(name, ".complete") ||
	    ends_with(name, ".zip") || l->n >= MAX_FILES)
		return 0;
	snprintf(complete, sizeof(complete), "%s.complete", name);
	if (!faccessat(l->dir, complete, F_OK, AT_SYMLINK_NOFOLLOW))
		return 0;
	f = growarr_push((void **)&l->v, &l->n, &l->cap, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->slice = strtoull(num, NULL, 10);
	f->seen = l->n - 1;
	f->perf = k == 0;
	snprintf(f->name, sizeof(f->name), "%s", name);
	return 0;
}

/* Python's stable sort by slice number (the names' first letters agree). */
static int by_slice(const void *a, const void *b)
{
	const struct text_file *x = a, *y = b;

	if (x->slice != y->slice)
		return x->slice < y->slice ? -1 : 1;
	return x->seen < y->seen ? -1 : x->seen > y->seen;
}

/* Whether s holds only well-formed UTF-8, as the analysis decodes it. */
static bool utf8(const unsigned char *s, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		unsigned char c = s[i];
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 :
			     (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;

		if (!len || (len == 2 && c < 0xc2) || i + len > n)
			return false;
		for (k = 1; k < len; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
		if ((len == 3 && c == 0xe0 && s[i + 1] < 0xa0) ||
		    (len == 3 && c == 0xed && s[i + 1] >= 0xa0) ||
		    (len == 4 && ((c == 0xf0 && s[i + 1] < 0x90) || c > 0xf4 ||
				  (c == 0xf4 && s[i + 1] >= 0x90))))
			return false;
		i += len;
	}
	return true;
}

/* The thread as the row names it: SQLite's INTEGER where it is one. */
static void row_tid(struct osrt_msprof_row *r, const char *s, size_t n)
{
	size_t i;

	r->tid_number = n && n <= 18;
	for (i = 0; i < n && r->tid_number; i++)
		r->tid_number = s[i] >= '0' && s[i] <= '9';
	r->tid = r->tid_number ? strtoull(s, NULL, 10) : 0;
}

struct reading {
	struct osrt_set *s;
	struct idmap rows;	/* name id << 32 | thread id -> row */
	char pid[24];		/* a line that names no thread: the task's */
	double now_s;
};

static int add_row(struct reading *rd, const struct osrt_parsed *pl)
{
	struct osrt_set *s = rd->s;
	const char *tid = pl->tid ? pl->tid : rd->pid;
	size_t tid_len = pl->tid ? pl->tid_len : strlen(rd->pid);
	struct osrt_msprof_row *r;
	uint32_t name, tid_text, at;
	int err;

	err = strtab_intern(&s->names, pl->name, pl->name_len, &name) ?:
	      strtab_intern(&s->names, tid, tid_len, &tid_text);
	if (err)
		return err;
	s->total += pl->dur_ns;
	if (!idmap_get(&rd->rows, (uint64_t)name << 32 | tid_text, &at)) {
		r = &s->rows[at];
		r->sum += pl->dur_ns;
		r->max = pl->dur_ns > r->max ? pl->dur_ns : r->max;
		r->min = pl->dur_ns < r->min ? pl->dur_ns : r->min;
		r->count++;
		return 0;
	}
	r = growarr_push((void **)&s->rows, &s->nrows, &s->cap_rows, sizeof(*r));
	if (!r)
		return -ENOMEM;
	*r = (struct osrt_msprof_row){ .name = name, .tid_text = tid_text,
				       .count = 1, .sum = pl->dur_ns,
				       .max = pl->dur_ns, .min = pl->dur_ns };
	row_tid(r, tid, tid_len);
	return idmap_put(&rd->rows, (uint64_t)name << 32 | tid_text,
			 (uint32_t)(s->nrows - 1));
}

/* One line: 0, 1 where the analysis stops reading the file, or -errno. */
static int take_line(struct reading *rd, bool perf, const char *line, size_t n)
{
	struct osrt_parsed pl;

	if (!utf8((const unsigned char *)line, n))
		return 1;
	if (perf)
		osrt_parse_perf(line, n, rd->now_s, &pl);
	else
		osrt_parse_ltrace(line, n, &pl);
	return pl.kept ? add_row(rd, &pl) : 0;
}

/* The file's lines ('\n', '\r' or both end one, as Python's reading). */
static int read_file(struct reading *rd, int dir, const struct text_file *f)
{
	char path[NAME_MAX + 16], *buf = malloc(LINE_MAX_BYTES + 1);
	size_t len = 0, i, start;
	bool skipping = false;
	struct stat st;
	int fd, err = 0;
	ssize_t got;

	snprintf(path, sizeof(path), "%s/%s", PROFDIR_HOST_DATA, f->name);
	fd = safe_open_beneath(dir, path, &st);
	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return buf ? 0 : -ENOMEM;
	}
	rd->s->files = true;
	for (;;) {
		got = read(fd, buf + len, LINE_MAX_BYTES - len);
		if (got <= 0)
			break;
		len += (size_t)got;
		for (start = 0, i = 0; i < len && !err; i++) {
			if (buf[i] != '\n' && buf[i] != '\r')
				continue;
			if (!skipping)
				err = take_line(rd, f->perf, buf + start, i - start);
			skipping = false;
			start = i + 1;
		}
		if (err)
			break;
		memmove(buf, buf + start, len - start);
		len -= start;
		/* A line past the bound: passed over up to its end. */
		if (len == LINE_MAX_BYTES) {
			skipping = true;
			len = 0;
		}
	}
	if (!err && len && !skipping)
		err = take_line(rd, f->perf, buf, len);
	close(fd);
	free(buf);
	return err < 0 ? err : 0;
}

/* The analysis's group order: by name, then thread (INTEGER before TEXT). */
static int by_group(const void *a, const void *b, void *arg)
{
	const struct osrt_msprof_row *x = a, *y = b;
	const struct strtab *names = arg;
	int c = strcmp(strtab_str(names, x->name), strtab_str(names, y->name));

	if (c)
		return c;
	if (x->tid_number != y->tid_number)
		return x->tid_number ? -1 : 1;
	if (x->tid_number)
		return (x->tid > y->tid) - (x->tid < y->tid);
	return strcmp(strtab_str(names, x->tid_text), strtab_str(names, y->tid_text));
}

/* Then by total, largest first; SQLite's sort keeps the group order. */
static int by_total(const void *a, const void *b, void *arg)
{
	const struct osrt_msprof_row *x = a, *y = b;

	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	return by_group(a, b, arg);
}

int osrt_msprof_load(struct osrt_set *s, int dirfd, uint64_t pid)
{
	struct reading rd = { .s = s, .now_s = (double)time(NULL) };
	struct listing l = { 0 };
	size_t i;
	int err;

	snprintf(rd.pid, sizeof(rd.pid), "%llu", (unsigned long long)pid);
	l.dir = safe_openat_beneath(dirfd, PROFDIR_HOST_DATA,
				    O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (l.dir < 0)
		return l.dir == -ENOMEM ? l.dir : 0;	/* no files, no rows */
	err = fsutil_dir_for_each(l.dir, pick, &l);
	close(l.dir);
	if (!err && l.n)
		qsort(l.v, l.n, sizeof(*l.v), by_slice);
	for (i = 0; !err && i < l.n; i++)
		err = read_file(&rd, dirfd, &l.v[i]);
	free(l.v);
	idmap_free(&rd.rows);
	if (!err && s->nrows)
		qsort_r(s->rows, s->nrows, sizeof(*s->rows), by_total, &s->names);
	return err;
}
