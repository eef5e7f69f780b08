// SPDX-License-Identifier: MIT
/* Per-file results of the symbol lookup, kept for the session. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elfsym.h"
#include "symcache.h"

struct file_syms {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	uint64_t *offsets;	/* NULL: nothing of ours in this file */
};

struct symcache {
	const char *const *names;
	size_t nnames;
	struct file_syms *files;
	size_t nfiles;
	size_t cap;
	uint64_t *scratch;	/* nnames offsets for a lookup */
};

int symcache_new(struct symcache **out, const char *const *names, size_t n)
{
	struct symcache *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->names = names;
	c->nnames = n;
	c->scratch = calloc(n ? n : 1, sizeof(*c->scratch));
	if (!c->scratch) {
		free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

void symcache_free(struct symcache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nfiles; i++)
		free(c->files[i].offsets);
	free(c->files);
	free(c->scratch);
	free(c);
}

static bool same_file(const struct file_syms *f, const struct stat *st)
{
	return f->dev == st->st_dev && f->ino == st->st_ino &&
	       f->size == st->st_size &&
	       f->mtime.tv_sec == st->st_mtim.tv_sec &&
	       f->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* Remembers this file's result; a failure only costs a later re-read. */
static void remember(struct symcache *c, const struct stat *st, bool found)
{
	struct file_syms *f;

	if (c->nfiles == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct file_syms *v = realloc(c->files, cap * sizeof(*v));

		if (!v)
			return;
		c->files = v;
		c->cap = cap;
	}
	f = &c->files[c->nfiles];
	*f = (struct file_syms){ .dev = st->st_dev, .ino = st->st_ino,
				 .size = st->st_size, .mtime = st->st_mtim };
	if (found) {
		f->offsets = malloc(c->nnames * sizeof(*f->offsets));
		if (!f->offsets)
			return;
		memcpy(f->offsets, c->scratch, c->nnames * sizeof(*f->offsets));
	}
	c->nfiles++;
}

const uint64_t *symcache_lookup(struct symcache *c, const char *path)
{
	struct stat st;
	size_t i;

	if (stat(path, &st))
		return NULL;
	for (i = 0; i < c->nfiles; i++)
		if (same_file(&c->files[i], &st))
			return c->files[i].offsets;
	if (elfsym_find_funcs(path, c->names, c->nnames, c->scratch) <= 0) {
		remember(c, &st, false);
		return NULL;
	}
	remember(c, &st, true);
	return c->scratch;
}
