// SPDX-License-Identifier: MIT
/*
 * Gathering the nodes' PROF_ directories into one cluster directory.  The
 * sources are other machines' files: nothing in them is followed, trusted
 * in size or kept half-copied.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"
#include "common/err.h"
#include "common/fsutil.h"
#include "common/printable.h"
#include "common/safe_open.h"

/* A PROF_ directory is a few levels deep: device_N/data/..., analyze/... */
#define COLLECT_MAX_DEPTH 8
#define COLLECT_MAX_ENTRIES 100000
#define COLLECT_MAX_BYTES (64ull << 30)	/* per PROF_ directory */
/* PROF_x, PROF_x_2 ... PROF_x_99: msprof-analyze takes any PROF_ name. */
#define COLLECT_MAX_SUFFIX 99

/* One PROF_ directory's copy: what it may still take, where it failed. */
struct copy {
	unsigned long long bytes_left;
	unsigned int entries_left;
	char where[PATH_MAX];	/* the entry being copied, for the message */
	const char *why;	/* what was refused; NULL: an errno says it */
};

static int copy_tree(int src, int dst, unsigned int depth, struct copy *c);

/* size bytes of in to out, from their starts; a file that shrank is refused. */
static int copy_bytes(int in, int out, off_t size, struct copy *c)
{
	char buf[1 << 16];
	off_t done = 0;
	ssize_t n;

	while (done < size) {
		size_t want = size - done < (off_t)sizeof(buf) ?
			      (size_t)(size - done) : sizeof(buf);

		n = pread(in, buf, want, done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n) {
			c->why = "shrank while copied";
			return -EPROTO;
		}
		if (write(out, buf, (size_t)n) != n)
			return errno ? -errno : -EIO;
		done += n;
	}
	return 0;
}

static int copy_file(int src, int dst, const char *name, struct copy *c)
{
	struct stat st;
	int in, out, err;

	in = safe_open_beneath(src, name, &st);
	if (in < 0)
		return in;
	/* A second name may be a file of root's linked in by its reader. */
	if (st.st_nlink != 1) {
		close(in);
		c->why = "has more than one link";
		return -EMLINK;
	}
	if ((unsigned long long)st.st_size > c->bytes_left) {
		close(in);
		c->why = "is past the size limit of a PROF_ directory (64 GiB)";
		return -EFBIG;
	}
	c->bytes_left -= (unsigned long long)st.st_size;
	err = fsutil_create_at(dst, name, &out);
	if (!err) {
		err = copy_bytes(in, out, st.st_size, c);
		if (close(out) && !err)
			err = -errno;
	}
	close(in);
	return err;
}

static int copy_dir(int src, int dst, const char *name, unsigned int depth,
		    struct copy *c)
{
	int in, out, err;

	if (depth >= COLLECT_MAX_DEPTH) {
		c->why = "is deeper than a PROF_ directory goes (8 levels)";
		return -ELOOP;
	}
	in = safe_openat_beneath(src, name, O_RDONLY | O_DIRECTORY, 0);
	if (in < 0)
		return in;
	err = mkdirat(dst, name, 0755) ? -errno : 0;
	out = err ? -1 : safe_openat_beneath(dst, name, O_RDONLY | O_DIRECTORY, 0);
	if (!err && out < 0)
		err = out;
	if (!err)
		err = copy_tree(in, out, depth + 1, c);
	if (out >= 0)
		close(out);
	close(in);
	return err;
}

/* The entry's path from the PROF_ directory, kept for the message. */
static void enter(struct copy *c, const char *name, size_t *mark)
{
	*mark = strlen(c->where);
	snprintf(c->where + *mark, sizeof(c->where) - *mark, "/%s", name);
}

struct walk {
	int dst;
	unsigned int depth;
	struct copy *c;
	bool failed;
};

static int copy_entry(int src, const char *name, void *ctx)
{
	struct walk *w = ctx;
	struct copy *c = w->c;
	struct stat st;
	size_t mark;
	int err;

	/* The first refusal decides: the rest is not copied. */
	if (w->failed)
		return 0;
	enter(c, name, &mark);
	if (!c->entries_left--) {
		c->why = "has more entries than a PROF_ directory holds (100000)";
		err = -E2BIG;
	} else if (fstatat(src, name, &st, AT_SYMLINK_NOFOLLOW)) {
		err = -errno;
	} else if (S_ISDIR(st.st_mode)) {
		err = copy_dir(src, w->dst, name, w->depth, c);
	} else if (S_ISREG(st.st_mode)) {
		err = copy_file(src, w->dst, name, c);
	} else {
		c->why = S_ISLNK(st.st_mode) ? "is a symbolic link" :
			 "is not a regular file or directory";
		err = -EINVAL;
	}
	if (err) {
		w->failed = true;
		return err;
	}
	c->where[mark] = '\0';
	return 0;
}

static int copy_tree(int src, int dst, unsigned int depth, struct copy *c)
{
	struct walk w = { .dst = dst, .depth = depth, .c = c };

	return fsutil_dir_for_each(src, copy_entry, &w);
}

/* What the staging directory holds of one copy goes, with it. */
static void unstage(int stage, const char *name)
{
	int fd = safe_openat_beneath(stage, name, O_RDONLY | O_DIRECTORY, 0);

	if (fd >= 0) {
		fsutil_dir_remove_all(fd, geteuid());
		close(fd);
	}
	unlinkat(stage, name, AT_REMOVEDIR);
}

/* Into dest under name or name_<n>, whichever is free first. */
static int rename_in(int stage, const char *staged, int dest, char *name,
		     size_t len)
{
	char base[NAME_MAX + 1];
	unsigned int n;

	snprintf(base, sizeof(base), "%s", name);
	for (n = 1; n <= COLLECT_MAX_SUFFIX; n++) {
		if (n > 1 && snprintf(name, len, "%s_%u", base, n) >= (int)len)
			return -ENAMETOOLONG;
		if (!renameat2(stage, staged, dest, name, RENAME_NOREPLACE))
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

struct job {
	int dest, stage;
	const char *dest_path;
	const char *src_path;
	unsigned int collected, failed;
};

/* One PROF_ directory, name in src: copied whole, or not at all. */
static int collect_one(int src, const char *name, struct job *j)
{
	struct copy c = { .bytes_left = COLLECT_MAX_BYTES,
			  .entries_left = COLLECT_MAX_ENTRIES };
	char final[NAME_MAX + 1];
	struct stat st;
	int err = 0;

	snprintf(final, sizeof(final), "%s", name);
	if (fstatat(src, name, &st, AT_SYMLINK_NOFOLLOW))
		err = -errno;
	else if (!S_ISDIR(st.st_mode))
		c.why = S_ISLNK(st.st_mode) ? "is a symbolic link" :
			"is not a directory";
	if (!err && c.why)
		err = -EINVAL;
	if (!err)
		err = copy_dir(src, j->stage, name, 0, &c);
	if (!err)
		err = rename_in(j->stage, name, j->dest, final, sizeof(final));
	if (err) {
		unstage(j->stage, name);
		ERR("--collect: %s/%s%s %s; not collected", j->src_path, name,
		    printable(c.where), c.why ?: strerror(-err));
		j->failed++;
		return 0;
	}
	printf("msprof: collected %s/%s as %s/%s\n", j->src_path, name,
	       j->dest_path, final);
	j->collected++;
	return 0;
}

static bool is_prof(const char *name)
{
	return !strncmp(name, "PROF_", 5);
}

static int collect_entry(int src, const char *name, void *ctx)
{
	struct stat st;

	if (!is_prof(name) || fstatat(src, name, &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	/* A link named PROF_ is refused as a link inside one is. */
	if (!S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode))
		return 0;
	return collect_one(src, name, ctx);
}

/* src: a PROF_ directory, or one holding PROF_ directories. */
static void collect_source(const char *src, struct job *j)
{
	char path[PATH_MAX], name[NAME_MAX + 1], *slash;
	int fd;

	snprintf(path, sizeof(path), "%s", src);
	while ((slash = strrchr(path, '/')) && slash != path && !slash[1])
		*slash = '\0';
	slash = strrchr(path, '/');
	snprintf(name, sizeof(name), "%.*s", NAME_MAX, slash ? slash + 1 : path);
	j->src_path = path;
	if (!is_prof(name)) {
		fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			fsutil_dir_for_each(fd, collect_entry, j);
			close(fd);
			return;
		}
	} else {
		/* The PROF_ directory itself is opened as any inside one. */
		if (!slash)
			snprintf(path, sizeof(path), ".");
		else
			slash[slash == path] = '\0';
		j->src_path = path;
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			collect_one(fd, name, j);
			close(fd);
			return;
		}
	}
	ERR("--collect: cannot open %s: %s", src,
	    errno == ELOOP ? "it is a symbolic link" : strerror(errno));
	j->failed++;
}

static int make_stage(int dest, char *name, size_t len)
{
	unsigned long long rnd;

	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -errno;
	snprintf(name, len, ".msprof_collect_%016llx", rnd);
	return mkdirat(dest, name, 0700) ? -errno : 0;
}

int collect_run(const char *dest, char *const *srcs)
{
	struct job j = { .dest_path = dest };
	char stage[64];
	int err;

	err = fsutil_dir_open_safe(dest, 0755, &j.dest);
	if (err) {
		ERR("--collect: the cluster directory %s %s", dest,
		    fsutil_dir_open_problem(err) ?: strerror(-err));
		return err;
	}
	err = make_stage(j.dest, stage, sizeof(stage));
	if (!err) {
		j.stage = safe_openat_beneath(j.dest, stage, O_RDONLY | O_DIRECTORY, 0);
		err = j.stage < 0 ? j.stage : 0;
	}
	if (err) {
		ERR("--collect: cannot make a staging directory in %s: %s", dest,
		    strerror(-err));
		close(j.dest);
		return err;
	}
	for (; *srcs; srcs++)
		collect_source(*srcs, &j);
	close(j.stage);
	unlinkat(j.dest, stage, AT_REMOVEDIR);
	close(j.dest);
	printf("msprof: %u PROF_ director%s collected into %s", j.collected,
	       j.collected == 1 ? "y" : "ies", dest);
	if (j.failed)
		printf(", %u not", j.failed);
	printf("\n");
	if (!j.collected && !j.failed)
		ERR("--collect: no PROF_ directory in the sources");
	return j.failed || !j.collected ? -EINVAL : 0;
}
