// SPDX-License-Identifier: MIT
/*
 * Gathering the nodes' PROF_ directories into one cluster directory.  The
 * sources are other machines' files: nothing in them is followed, trusted
 * in size or kept half-copied, and their names reach the terminal made
 * printable.  A run writes their data only (holes stay holes), at most its
 * budget, and stops where the destination would go into its free-space
 * reserve.
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
#include "common/testpoint.h"

/* A PROF_ directory is a few levels deep: device_N/data/..., analyze/... */
#define COLLECT_MAX_DEPTH 8
#define COLLECT_MAX_ENTRIES 100000
/*
 * Bytes one run may write, all PROF_ directories together (holes kept are
 * none): 256 windows at the 4 GiB a window's device data may take
 * (STAGE_COPY_MAX_BYTES), more than a large job's cluster directory,
 * yet a bound however many directories the sources hold and however big
 * the file system.  The free-space reserve (fsutil_room()) is what keeps
 * a smaller one from filling.
 */
#define COLLECT_MAX_BYTES (1ull << 40)
/* PROF_x, PROF_x_2 ... PROF_x_99: msprof-analyze takes any PROF_ name. */
#define COLLECT_MAX_SUFFIX 99

/* One PROF_ directory's copy: what it may still take, where it failed. */
struct copy {
	struct fsutil_budget *budget;	/* the run's */
	unsigned int entries_left;
	char where[PATH_MAX];	/* the entry being copied, for the message */
	const char *why;	/* what was refused; NULL: an errno says it */
};

static int copy_tree(int src, int dst, unsigned int depth, struct copy *c);

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
	err = fsutil_create_at(dst, name, &out);
	if (!err) {
		/* Its data only: a hole costs the cluster directory nothing. */
		err = fsutil_copy_data(in, st.st_size, out, c->budget);
		if (close(out) && !err)
			err = -errno;
	}
	close(in);
	if (err == -ENODATA)
		c->why = "shrank while copied";
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

/* One entry of a PROF_ directory, of whatever kind, into dst. */
static int copy_kind(int src, int dst, const char *name, unsigned int depth,
		     struct copy *c)
{
	struct stat st;
	int err;

	if (!c->entries_left--) {
		c->why = "has more entries than a PROF_ directory holds (100000)";
		return -E2BIG;
	}
	/* Even an empty file takes an inode: the reserve has its share. */
	err = fsutil_room(dst, c->budget, 0);
	if (err)
		return err;
	if (fstatat(src, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return copy_dir(src, dst, name, depth, c);
	if (S_ISREG(st.st_mode))
		return copy_file(src, dst, name, c);
	c->why = S_ISLNK(st.st_mode) ? "is a symbolic link" :
		 "is not a regular file or directory";
	return -EINVAL;
}

static int copy_entry(int src, const char *name, void *ctx)
{
	struct walk *w = ctx;
	size_t mark;
	int err;

	/* The first refusal decides: the rest is not copied. */
	if (w->failed)
		return 0;
	enter(w->c, name, &mark);
	err = copy_kind(src, w->dst, name, w->depth, w->c);
	if (err) {
		w->failed = true;
		return err;
	}
	w->c->where[mark] = '\0';
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

/* The longest "<source>/<PROF_ name>" a message holds. */
#define LABEL_MAX (PATH_MAX + NAME_MAX + 2)

struct job {
	int dest, stage;
	const char *dest_path;
	const char *src_path;
	unsigned int collected, failed;
	struct fsutil_budget budget;	/* the whole run's */
	/* The copy the run stopped at for want of room ("": none), and why. */
	char stopped_at[LABEL_MAX];
	char stop_why[192];
	unsigned int left_out;	/* PROF_ directories not copied for it */
};

/*
 * "a/b" (b may be NULL) as it may reach a terminal: the sources' names
 * are whatever their makers chose, escape sequences included.
 */
static const char *shown(char *buf, size_t len, const char *a, const char *b)
{
	snprintf(buf, len, "%s%s%s", a, b ? "/" : "", b ?: "");
	return printable(buf);
}

/* A copy that failed for want of room stops the run: no later one fits. */
static bool stops_run(struct job *j, const char *name, int err)
{
	char why[128], size[32];

	if (err != -ENOSPC && err != -EDQUOT)
		return false;
	shown(j->stopped_at, sizeof(j->stopped_at), j->src_path, name);
	if (j->budget.refused)
		snprintf(j->stop_why, sizeof(j->stop_why),
			 "its copy would go %s (%s written)",
			 fsutil_refusal_text(&j->budget, why, sizeof(why)),
			 fsutil_size_text(j->budget.used, size, sizeof(size)));
	else
		snprintf(j->stop_why, sizeof(j->stop_why), "its copy failed: %s",
			 strerror(-err));
	return true;
}

/* One PROF_ directory, name in src: copied whole, or not at all. */
static int collect_one(int src, const char *name, struct job *j)
{
	struct copy c = { .budget = &j->budget,
			  .entries_left = COLLECT_MAX_ENTRIES };
	char final[NAME_MAX + 1], from[LABEL_MAX], to[LABEL_MAX];
	struct stat st;
	int err = 0;

	/* After a stop the rest are only counted. */
	if (*j->stopped_at) {
		j->left_out++;
		return 0;
	}
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
		/* Nothing of it is kept: the cluster never holds half a copy. */
		unstage(j->stage, name);
		if (stops_run(j, name, err)) {
			j->left_out++;
			return 0;
		}
		ERR("--collect: %s%s%s %s; not collected",
		    shown(from, sizeof(from), j->src_path, name),
		    printable(c.where), c.why ? "" : ":",
		    c.why ?: strerror(-err));
		j->failed++;
		return 0;
	}
	printf("msprof: collected %s as %s\n",
	       shown(from, sizeof(from), j->src_path, name),
	       shown(to, sizeof(to), j->dest_path, final));
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
	char path[PATH_MAX], name[NAME_MAX + 1], label[LABEL_MAX], *slash;
	int fd, err;

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
	err = errno;
	ERR("--collect: cannot open %s: %s", shown(label, sizeof(label), src, NULL),
	    err == ELOOP ? "it is a symbolic link" : strerror(err));
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

/* The one line a stopped run ends with: where, why, how much is left out. */
static void say_stop(const struct job *j)
{
	char after[32] = "";

	if (j->left_out > 1)
		snprintf(after, sizeof(after), " and %u after it", j->left_out - 1);
	ERR("--collect: stopped at %s: %s; %u PROF_ director%s left out (that one%s), none of them kept",
	    j->stopped_at, j->stop_why, j->left_out,
	    j->left_out == 1 ? "y" : "ies", after);
}

int collect_run(const char *dest, char *const *srcs)
{
	struct job j = { .dest_path = dest };
	char stage[64], label[LABEL_MAX];
	int err;

	j.budget.max = testpoint_limit("collect_bytes", COLLECT_MAX_BYTES);
	shown(label, sizeof(label), dest, NULL);
	err = fsutil_dir_open_safe(dest, 0755, &j.dest);
	if (err) {
		ERR("--collect: the cluster directory %s %s", label,
		    fsutil_dir_open_problem(err) ?: strerror(-err));
		return err;
	}
	err = make_stage(j.dest, stage, sizeof(stage));
	if (!err) {
		j.stage = safe_openat_beneath(j.dest, stage, O_RDONLY | O_DIRECTORY, 0);
		err = j.stage < 0 ? j.stage : 0;
	}
	if (err) {
		ERR("--collect: cannot make a staging directory in %s: %s", label,
		    strerror(-err));
		close(j.dest);
		return err;
	}
	for (; *srcs; srcs++)
		collect_source(*srcs, &j);
	close(j.stage);
	unlinkat(j.dest, stage, AT_REMOVEDIR);
	close(j.dest);
	if (*j.stopped_at)
		say_stop(&j);
	printf("msprof: %u PROF_ director%s collected into %s", j.collected,
	       j.collected == 1 ? "y" : "ies", label);
	if (j.failed + j.left_out)
		printf(", %u not", j.failed + j.left_out);
	printf("\n");
	if (!j.collected && !j.failed && !j.left_out)
		ERR("--collect: no PROF_ directory in the sources");
	return j.failed || j.left_out || !j.collected ? -EINVAL : 0;
}
