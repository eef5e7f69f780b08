// SPDX-License-Identifier: MIT
/* --export=on: every PROF_ directory under the given one into a timeline. */
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
#include <time.h>
#include <unistd.h>

#include "export.h"
#include "fsutil.h"
#include "profdata.h"
#include "profdir.h"
#include "safe_open.h"
#include "testpoint.h"
#include "timeline.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/*
 * A directory, not a link to one: -ELOOP then, which O_DIRECTORY alone
 * reports as -ENOTDIR.
 */
static int open_dir(int fd, const char *name)
{
	int sub = openat(fd, name, DIR_FLAGS);
	struct stat st;

	if (sub >= 0 || errno != ENOTDIR)
		return sub >= 0 ? sub : -errno;
	if (!fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
		return -ELOOP;
	return -ENOTDIR;
}

/*
 * The output directory, made or found in the PROF_ directory: it must be a
 * directory of ours that no one else can write, since we create files in
 * it.  -EPERM: someone else's.
 */
static int open_output(int dirfd, bool *made)
{
	struct stat st;
	int fd;

	*made = !mkdirat(dirfd, PROFDIR_OUTPUT, 0750);
	if (!*made && errno != EEXIST)
		return -errno;
	fd = open_dir(dirfd, PROFDIR_OUTPUT);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	if ((st.st_uid != geteuid() && st.st_uid != 0) ||
	    (st.st_mode & S_IWOTH) ||
	    ((st.st_mode & S_IWGRP) && st.st_gid != getegid() && st.st_gid != 0)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

static const char *output_strerror(int err)
{
	switch (err) {
	case -ELOOP:
		return PROFDIR_OUTPUT " is a symbolic link: refused";
	case -ENOTDIR:
		return PROFDIR_OUTPUT " is not a directory: refused";
	case -EPERM:
		return PROFDIR_OUTPUT " belongs to another user or others can write it: refused";
	}
	return strerror(-err);
}

/* A new file of an unpredictable name, so nothing planted can be met. */
static int create_temp(int ofd, const char *name, char *tmp, size_t len)
{
	unsigned long long rnd;
	int i, fd, err = -EEXIST;

	for (i = 0; i < 8 && err == -EEXIST; i++) {
		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			return -errno;
		snprintf(tmp, len, ".%s.%016llx.tmp", name, rnd);
		err = create_at(ofd, tmp, &fd);
	}
	return err ?: fd;
}

/* Writes under a temporary name, so a failed export leaves no JSON. */
static int write_json(int ofd, const char *name, const struct profdata *p)
{
	char tmp[NAME_MAX + 1];
	int err, fd = create_temp(ofd, name, tmp, sizeof(tmp));
	FILE *fp;

	if (fd < 0)
		return fd;
	fp = fdopen(fd, "w");
	if (!fp) {
		err = -errno;
		close(fd);
		goto out;
	}
	err = timeline_write(fp, p);
	if (!err && fsync(fileno(fp)))
		err = -errno;
	if (fclose(fp) && !err)
		err = -errno;
	testpoint("export-before-rename");
	if (!err && renameat(ofd, tmp, ofd, name))
		err = -errno;
out:
	if (err)
		unlinkat(ofd, tmp, 0);
	return err;
}

static int write_timeline(int dirfd, const char *label, const struct profdata *p)
{
	char name[64], stamp[16];
	time_t now = time(NULL);
	struct tm tm;
	bool made;
	int err, ofd;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	snprintf(name, sizeof(name), "msprof_%s.json", stamp);
	ofd = open_output(dirfd, &made);
	if (ofd < 0) {
		fprintf(stderr, "msprof: %s: not exported: %s\n", label,
			output_strerror(ofd));
		return ofd;
	}
	err = write_json(ofd, name, p);
	close(ofd);
	if (err) {
		if (made)
			unlinkat(dirfd, PROFDIR_OUTPUT, AT_REMOVEDIR);
		fprintf(stderr, "msprof: %s: not exported: cannot write %s/%s: %s\n",
			label, PROFDIR_OUTPUT, name, strerror(-err));
		return err;
	}
	printf("%s/%s/%s\n", label, PROFDIR_OUTPUT, name);
	return 0;
}

/* Lost data is never silent: one line per data file read in part. */
static void report_losses(const char *label, const struct profdata *p)
{
	char why[256];
	unsigned int i;

	for (i = 0; i < p->nproblems && i < PROFDATA_MAX_PROBLEMS; i++) {
		const struct profdata_problem *pb = &p->problems[i];

		recfile_strerror(why, sizeof(why), pb->err, &pb->stop);
		fprintf(stderr, "msprof: %s/%s: %s: %s\n", label, pb->file, why,
			pb->err == -EBADMSG || pb->err == -EILSEQ ?
			"exported up to there" : "its data is not exported");
	}
	if (p->nproblems > PROFDATA_MAX_PROBLEMS)
		fprintf(stderr, "msprof: %s: %u more data files read in part\n",
			label, p->nproblems - PROFDATA_MAX_PROBLEMS);
	if (p->meta.incomplete)
		fprintf(stderr, "msprof: %s: incomplete window (%s): exported what was recorded\n",
			label, p->meta.incomplete_reason);
}

/* 0: exported whole; 1: exported, less than the window held; or -errno. */
static int export_one(int dirfd, const char *label)
{
	struct profdata p;
	char why[256];
	int err;

	err = profdata_load_at(&p, dirfd);
	if (err) {
		profdata_strerror(why, sizeof(why), err);
		fprintf(stderr, "msprof: %s: not exported: %s\n", label, why);
		return err;
	}
	testpoint("export-after-load");
	report_losses(label, &p);
	err = write_timeline(dirfd, label, &p);
	if (!err)
		err = p.nproblems || p.meta.incomplete;
	profdata_free(&p);
	return err;
}

/* Named PROF_..., or holding what a window begins with. */
static bool is_window(int fd, const char *dir)
{
	const char *end = dir + strlen(dir), *base;
	struct stat st;

	while (end > dir && end[-1] == '/')
		end--;
	for (base = end; base > dir && base[-1] != '/'; base--)
		;
	return (end - base > 5 && !strncmp(base, "PROF_", 5)) ||
	       !fstatat(fd, PROFDIR_FACTS, &st, AT_SYMLINK_NOFOLLOW) ||
	       !fstatat(fd, PROFDIR_HOST_START, &st, AT_SYMLINK_NOFOLLOW);
}

static int is_prof_entry(const struct dirent *de)
{
	return !strncmp(de->d_name, "PROF_", 5);
}

/* Every PROF_ entry is exported or named with why not. */
static int export_all(int fd, const char *dir)
{
	int i, n, sub, err, ok = 0, part = 0, failed = 0;
	struct dirent **list;
	char label[PATH_MAX + NAME_MAX + 2];

	n = scandirat(fd, ".", &list, is_prof_entry, alphasort);
	if (n < 0) {
		err = -errno;
		fprintf(stderr, "msprof: %s: %s\n", dir, strerror(-err));
		return err;
	}
	for (i = 0; i < n; i++) {
		snprintf(label, sizeof(label), "%s/%s", dir, list[i]->d_name);
		sub = open_dir(fd, list[i]->d_name);
		if (sub < 0) {
			fprintf(stderr, "msprof: %s: not exported: %s\n", label,
				sub == -ENOTDIR ? "not a directory" :
				open_file_strerror(sub));
			failed++;
		} else {
			err = export_one(sub, label);
			close(sub);
			ok += !err;
			part += err > 0;
			failed += err < 0;
		}
		free(list[i]);
	}
	free(list);
	if (!n) {
		fprintf(stderr, "msprof: %s: no PROF_ directory to export\n", dir);
		return -ENOENT;
	}
	if (!part && !failed)
		return 0;
	fprintf(stderr, "msprof: %s: %d of %d PROF_ entries exported whole, %d in part, %d not exported\n",
		dir, ok, n, part, failed);
	return failed ? -EIO : -EBADMSG;
}

int export_run(const char *dir)
{
	int err, fd = open_dir(AT_FDCWD, dir);

	if (fd < 0) {
		fprintf(stderr, "msprof: %s: %s\n", dir, fd == -ELOOP ?
			"a symbolic link (not followed): give the directory it names" :
			strerror(-fd));
		return fd;
	}
	if (is_window(fd, dir)) {
		err = export_one(fd, dir);
		if (err > 0)
			err = -EBADMSG;
	} else {
		err = export_all(fd, dir);
	}
	close(fd);
	return err;
}
