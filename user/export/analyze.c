// SPDX-License-Identifier: MIT
/*
 * --analyze=on: msprof's communication analysis of each window.  No
 * collective communication is recorded yet, so both files hold {}, which
 * msprof-analyze's cluster reads as a rank without communication data
 * ([] it cannot read); it wants analyze/ before it takes a rank in text
 * mode at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "common/fsutil.h"
#include "task/profdir.h"
#include "profmeta.h"
#include "common/testpoint.h"
#include "windows.h"

static const char *const files[] = {
	"communication.json",
	"communication_matrix.json",
};

#define NFILES (sizeof(files) / sizeof(files[0]))
#define EMPTY "{}"

/*
 * ".<file>.<16 hex>.tmp", which a run killed before its rename leaves; the
 * directory is ours (windows_output_dir_open), so nothing here is followed.
 */
static int remove_temp(int afd, const char *entry, void *ctx)
{
	size_t i, n, len = strlen(entry);

	(void)ctx;
	for (i = 0; i < NFILES; i++) {
		n = strlen(files[i]);
		if (len == n + 22 && entry[0] == '.' &&
		    !strncmp(entry + 1, files[i], n) && entry[n + 1] == '.' &&
		    strspn(entry + n + 2, "0123456789abcdef") == 16 &&
		    !strcmp(entry + n + 18, ".tmp") &&
		    unlinkat(afd, entry, 0) && errno != ENOENT)
			return -errno;
	}
	return 0;
}

/*
 * Both under temporary names, then both renamed in over an earlier run's:
 * a failed run leaves none of its files half-written or alone.
 */
static int write_files(int afd, const char *label)
{
	char tmp[NFILES][NAME_MAX + 1];
	size_t i, made = 0, renamed = 0;
	int err = fsutil_dir_for_each(afd, remove_temp, NULL);

	if (err)
		fprintf(stderr, "msprof: %s: a killed run's temporary files are left in %s: %s\n",
			label, PROFDIR_ANALYZE, strerror(-err));
	for (err = 0; made < NFILES; made++) {
		err = fsutil_write_temp_at(afd, files[made], EMPTY, strlen(EMPTY),
				    tmp[made], sizeof(tmp[made]));
		if (err) {
			fprintf(stderr, "msprof: %s: not analyzed: cannot write %s/%s: %s\n",
				label, PROFDIR_ANALYZE, files[made], strerror(-err));
			break;
		}
	}
	testpoint("analyze-before-rename");
	for (; renamed < made && !err; renamed++)
		if (renameat(afd, tmp[renamed], afd, files[renamed])) {
			err = -errno;
			fprintf(stderr, "msprof: %s: not analyzed: cannot rename into %s/%s: %s\n",
				label, PROFDIR_ANALYZE, files[renamed], strerror(-err));
			break;
		}
	if (err) {
		/* The renamed ones too: all of a run or none of it. */
		for (i = 0; i < made; i++)
			unlinkat(afd, i < renamed ? files[i] : tmp[i], 0);
		return err;
	}
	return 0;
}

static int analyze_one(int dirfd, const char *label, void *ctx)
{
	struct profmeta m;
	char why[256];
	bool made;
	size_t i;
	int err, afd;

	(void)ctx;
	err = profmeta_read(&m, dirfd);
	if (err) {
		profmeta_strerror(why, sizeof(why), err);
		fprintf(stderr, "msprof: %s: not analyzed: %s\n", label, why);
		return err;
	}
	afd = windows_output_dir_open(dirfd, PROFDIR_ANALYZE, &made);
	if (afd < 0) {
		windows_output_dir_strerror(why, sizeof(why), PROFDIR_ANALYZE, afd);
		fprintf(stderr, "msprof: %s: not analyzed: %s\n", label, why);
		return afd;
	}
	err = write_files(afd, label);
	close(afd);
	if (err) {
		if (made)
			unlinkat(dirfd, PROFDIR_ANALYZE, AT_REMOVEDIR);
		return err;
	}
	fprintf(stderr, "msprof: %s: no communication operators recorded: %s/ holds {} for each\n",
		label, PROFDIR_ANALYZE);
	for (i = 0; i < NFILES; i++)
		printf("%s/%s/%s\n", label, PROFDIR_ANALYZE, files[i]);
	return 0;
}

int analyze_run(const char *dir)
{
	const struct window_walk w = {
		.verb = "analyze", .done = "analyzed", .one = analyze_one,
	};

	return windows_walk(dir, &w);
}
