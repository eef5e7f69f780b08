// SPDX-License-Identifier: MIT
/* Per-file results of the symbol lookup, kept for the session. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsym.h"
#include "symcache.h"

struct file_syms {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	uint64_t *offsets;	/* NULL: nothing of ours in this file */
	int err;		/* a refusal, said again at each lookup */
	char *why;
};

struct symcache {
	const char *const *names;
	size_t nnames;
	struct file_syms *files;
	size_t nfiles;
	size_t cap;
	uint64_t *scratch;	/* nnames offsets for a lookup */
	uint64_t budget;	/* what this walk may still read */
};

int symcache_new(struct symcache **out, const char *const *names, size_t n)
{
	struct symcache *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->names = names;
	c->nnames = n;
	c->budget = SYMCACHE_WALK_BYTES;
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
	for (i = 0; i < c->nfiles; i++) {
		free(c->files[i].offsets);
		free(c->files[i].why);
	}
	free(c->files);
	free(c->scratch);
	free(c);
}

void symcache_walk_begin(struct symcache *c)
{
	c->budget = SYMCACHE_WALK_BYTES;
}

static bool same_file(const struct file_syms *f, const struct stat *st)
{
	return f->dev == st->st_dev && f->ino == st->st_ino &&
	       f->size == st->st_size &&
	       f->mtime.tv_sec == st->st_mtim.tv_sec &&
	       f->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static struct file_syms *find(struct symcache *c, const struct stat *st)
{
	size_t i;

	for (i = 0; i < c->nfiles; i++)
		if (same_file(&c->files[i], st))
			return &c->files[i];
	return NULL;
}

/*
 * Remembers this file's answer (ret of elfsym_find_funcs); one that cannot
 * be kept only costs a later re-read.
 */
static void remember(struct symcache *c, const struct stat *st, int ret,
		     const char *why)
{
	struct file_syms *f;

	if (c->nfiles == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct file_syms *v;

		if (cap > SYMCACHE_MAX_FILES)
			return;
		v = realloc(c->files, cap * sizeof(*v));
		if (!v)
			return;
		c->files = v;
		c->cap = cap;
	}
	f = &c->files[c->nfiles];
	*f = (struct file_syms){ .dev = st->st_dev, .ino = st->st_ino,
				 .size = st->st_size, .mtime = st->st_mtim };
	if (ret > 0) {
		f->offsets = malloc(c->nnames * sizeof(*f->offsets));
		if (!f->offsets)
			return;
		memcpy(f->offsets, c->scratch, c->nnames * sizeof(*f->offsets));
	} else if (ret == -EFBIG || ret == -EINVAL) {
		f->why = strdup(why);
		if (!f->why)
			return;
		f->err = ret;
	}
	c->nfiles++;
}

/* elfsym_find_funcs() on path, if it is still the file st describes. */
static int read_file(struct symcache *c, const char *path,
		     const struct stat *st, char *why, size_t len)
{
	struct stat now;
	int fd, ret;

	/* A task's file: a FIFO or a device in its place must not hang us. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &now) || now.st_dev != st->st_dev ||
	    now.st_ino != st->st_ino)
		ret = -EAGAIN;	/* swapped since the stat */
	else
		ret = elfsym_find_funcs(fd, c->names, c->nnames, c->scratch,
					&c->budget, why, len);
	close(fd);
	return ret;
}

int symcache_lookup(struct symcache *c, const char *path,
		    const uint64_t **offsets, char *why, size_t len)
{
	const struct file_syms *f;
	struct stat st;
	int ret;

	*offsets = NULL;
	/* Only a regular file is opened: opening a device can do things. */
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	f = find(c, &st);
	if (f) {
		*offsets = f->offsets;
		if (f->err)
			snprintf(why, len, "%s", f->why);
		return f->err;
	}
	ret = read_file(c, path, &st, why, len);
	/* Not the file's doing: nothing kept, it is read again next time. */
	if (ret == -ENOSPC)
		return ret;
	if (ret == -ENOMEM || ret == -EAGAIN)
		return 0;
	remember(c, &st, ret, why);
	if (ret > 0)
		*offsets = c->scratch;
	return ret == -EFBIG || ret == -EINVAL ? ret : 0;
}
