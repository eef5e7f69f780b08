// SPDX-License-Identifier: MIT
/* --export=on: every PROF_ directory under the given one into a timeline. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "export.h"
#include "profdata.h"
#include "profdir.h"
#include "testpoint.h"
#include "timeline.h"

static bool is_prof_dir(const char *dir)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, PROFDIR_INFO) >=
	    (int)sizeof(path))
		return false;
	return !access(path, R_OK);
}

/* Writes under a temporary name, so a failed export leaves no JSON. */
static int export_one(const char *dir)
{
	char out[PATH_MAX + 32], path[PATH_MAX + 64], tmp[PATH_MAX + 80], stamp[16];
	struct profdata p;
	time_t now = time(NULL);
	struct tm tm;
	FILE *fp;
	int err;

	err = profdata_load(&p, dir);
	if (err) {
		fprintf(stderr, "msprof: cannot read %s: %s\n", dir, strerror(-err));
		return err;
	}
	testpoint("export-after-load");
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	snprintf(out, sizeof(out), "%s/%s", dir, PROFDIR_OUTPUT);
	snprintf(path, sizeof(path), "%s/msprof_%s.json", out, stamp);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (mkdir(out, 0750) && errno != EEXIST) {
		err = -errno;
		goto out;
	}
	fp = fopen(tmp, "we");
	if (!fp) {
		err = -errno;
		goto out;
	}
	err = timeline_write(fp, &p);
	if (fclose(fp) && !err)
		err = -errno;
	testpoint("export-before-rename");
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
out:
	if (err)
		fprintf(stderr, "msprof: cannot write the timeline of %s: %s\n",
			dir, strerror(-err));
	else
		printf("%s\n", path);
	profdata_free(&p);
	return err;
}

int export_run(const char *dir)
{
	char path[PATH_MAX + 256];
	struct dirent *de;
	int err = 0, found = 0;
	DIR *d;

	if (is_prof_dir(dir))
		return export_one(dir);
	d = opendir(dir);
	if (!d) {
		err = -errno;
		fprintf(stderr, "msprof: cannot open %s: %s\n", dir, strerror(-err));
		return err;
	}
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "PROF_", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!is_prof_dir(path))
			continue;
		found++;
		if (export_one(path) && !err)
			err = -EIO;
	}
	closedir(d);
	if (!found) {
		fprintf(stderr, "msprof: no PROF_ directory with an info.json in %s\n", dir);
		return -ENOENT;
	}
	return err;
}
