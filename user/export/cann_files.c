// SPDX-License-Identifier: MIT
/* Finding a runtime's slices and reading their records whole (§1). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cann.h"
#include "common/fsutil.h"
#include "common/safe_open.h"

/* More slices than a runtime rotates into in any window we take. */
#define MAX_SLICES	65536
#define READ_CHUNK	(64 * 1024)

struct slice {
	unsigned long n;
	bool aging;
	char name[NAME_MAX + 1];
};

struct slices {
	const char *kind;
	bool prefix;
	struct slice *v;
	size_t n, cap;
};

/* "<digits>" ending the name: its number; false if none. */
static bool slice_number(const char *s, unsigned long *n)
{
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 9)
		return false;
	*n = strtoul(s, &end, 10);
	return true;
}

static int pick_slice(int dir, const char *name, void *ctx)
{
	struct slices *sl = ctx;
	size_t k = strlen(sl->kind);
	const char *at = name;
	bool aging = false;
	unsigned long n;

	(void)dir;
	if (sl->prefix) {
		if (!strncmp(at, "aging.", 6))
			aging = true, at += 6;
		else if (!strncmp(at, "unaging.", 8))
			at += 8;
		else
			return 0;
	}
	if (strncmp(at, sl->kind, k) || strncmp(at + k, ".slice_", 7) ||
	    !slice_number(at + k + 7, &n))
		return 0;
	if (sl->n == sl->cap) {
		size_t cap = sl->cap ? sl->cap * 2 : 8;
		struct slice *v;

		if (cap > MAX_SLICES)
			return 0;
		v = realloc(sl->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		sl->v = v;
		sl->cap = cap;
	}
	sl->v[sl->n].n = n;
	sl->v[sl->n].aging = aging;
	snprintf(sl->v[sl->n].name, sizeof(sl->v[0].name), "%s", name);
	sl->n++;
	return 0;
}

/* The aging group first, each by slice number, as the C++ reader sorts. */
static int by_group_slice(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	if (x->aging != y->aging)
		return x->aging ? -1 : 1;
	return (x->n > y->n) - (x->n < y->n);
}

static int list_slices(struct profdata *p, const char *dir, struct slices *sl)
{
	int err, fd = safe_openat_beneath(p->dirfd, dir,
					  O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

	if (fd < 0)
		return fd == -ENOMEM ? fd : 0;	/* no such folder: no such files */
	err = fsutil_dir_for_each(fd, pick_slice, sl);
	close(fd);
	if (!err && sl->n)
		qsort(sl->v, sl->n, sizeof(*sl->v), by_group_slice);
	return err;
}

void cann_fault(const struct cann_src *s, const char *what)
{
	if (!s->quiet)
		profdata_problem(s->p, s->file, s->off, what);
}

void cann_note(const struct cann_src *s, const char *what)
{
	if (!s->quiet)
		profdata_note(s->p, s->file, s->off, what);
}

/* A file's whole records; what trails them is one fault. */
static int read_records(int fd, uint64_t size, size_t recsz,
			struct cann_src *s, cann_rec_fn fn, void *ctx)
{
	char *buf = malloc(READ_CHUNK);
	uint64_t whole = size - size % recsz, done = 0;
	size_t chunk = READ_CHUNK - READ_CHUNK % recsz, i;
	char what[96];
	int err = buf ? 0 : -ENOMEM;

	while (!err && done < whole) {
		size_t want = whole - done < chunk ? (size_t)(whole - done) : chunk;
		ssize_t got = pread(fd, buf, want, (off_t)done);

		if (got <= 0)
			break;	/* it shrank: what is left is cut, below */
		for (i = 0; !err && i + recsz <= (size_t)got; i += recsz) {
			s->off = done + i;
			err = fn(buf + i, s, ctx);
		}
		done += (uint64_t)got - (uint64_t)got % recsz;
		if ((size_t)got % recsz)
			break;
	}
	free(buf);
	if (!err && done < size) {
		s->off = done;
		snprintf(what, sizeof(what),
			 "%llu bytes after the last whole %zu-byte record (a cut slice?)",
			 (unsigned long long)(size - done), recsz);
		cann_fault(s, what);
	}
	return err;
}

static int each_slice(struct profdata *p, const char *dir, struct slices *sl,
		      bool quiet, size_t recsz, cann_rec_fn fn, void *ctx)
{
	char file[2 * NAME_MAX + 8];
	struct cann_src s = { .file = file, .quiet = quiet, .p = p };
	struct stat st;
	size_t i;
	int fd, err = 0;

	for (i = 0; i < sl->n && !err; i++) {
		snprintf(file, sizeof(file), "%s/%s", dir, sl->v[i].name);
		s.aging = sl->v[i].aging;
		s.off = 0;
		fd = safe_open_beneath(p->dirfd, file, &st);
		if (fd < 0) {
			if (fd == -ENOMEM)
				return fd;
			cann_fault(&s, safe_open_strerror(fd));
			continue;
		}
		err = recsz ? read_records(fd, (uint64_t)st.st_size, recsz, &s, fn, ctx) :
		      fn(&fd, &s, ctx);
		close(fd);
	}
	return err;
}

int cann_each_rec(struct profdata *p, const char *dir, const char *kind,
		  bool prefix, size_t recsz, bool quiet, cann_rec_fn fn, void *ctx)
{
	struct slices sl = { .kind = kind, .prefix = prefix };
	int err = list_slices(p, dir, &sl);

	if (!err)
		err = each_slice(p, dir, &sl, quiet, recsz, fn, ctx);
	free(sl.v);
	return err;
}

/* Longest dictionary line taken: a longer one is a fault of its own. */
#define LINE_MAX_LEN	4096

struct lines {
	cann_rec_fn fn;
	void *ctx;
};

static int read_lines(const void *rec, const struct cann_src *src, void *ctx)
{
	const struct lines *l = ctx;
	struct cann_src s = *src;
	char *line = malloc(LINE_MAX_LEN + 2);
	int err = 0, fd = dup(*(const int *)rec);
	FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;

	if (!fp || !line) {
		if (fd >= 0 && !fp)
			close(fd);
		free(line);
		if (fp)
			fclose(fp);
		return -ENOMEM;
	}
	while (!err && fgets(line, LINE_MAX_LEN + 2, fp)) {
		size_t n = strlen(line);
		bool whole = n && line[n - 1] == '\n';
		struct cann_src at = s;
		int c;

		if (whole)
			line[--n] = '\0';
		s.off += n + whole;
		if (!whole && n > LINE_MAX_LEN) {
			while ((c = getc(fp)) != EOF && c != '\n')
				s.off++;
			s.off++;
			cann_fault(&at, "a line longer than 4096 bytes");
		} else if (n) {
			err = l->fn(line, &at, l->ctx);
		}
	}
	fclose(fp);
	free(line);
	return err;
}

int cann_each_line(struct profdata *p, const char *dir, const char *kind,
		   cann_rec_fn fn, void *ctx)
{
	struct lines l = { fn, ctx };

	return cann_each_rec(p, dir, kind, true, 0, false, read_lines, &l);
}
