// SPDX-License-Identifier: MIT
/*
 * Finding the agent launch mode preloads.  msprof runs as root and the app
 * it launches runs as root too: the library must be no easier to replace
 * than msprof itself.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent_path.h"

/*
 * From the directory msprof runs from.  The build tree's layout by default;
 * `make install` relinks msprof with the path from BINDIR to LIBDIR/msprof.
 */
#ifndef MSPROF_AGENT_REL
#define MSPROF_AGENT_REL "../lib/libmsprof_agent.so"
#endif

/* Only root and whoever could replace msprof itself may change it. */
static bool trusted(const struct stat *st, uid_t owner)
{
	if (st->st_uid != 0 && st->st_uid != owner)
		return false;
	/* A sticky directory keeps others from renaming what is in it. */
	return !(st->st_mode & (S_IWGRP | S_IWOTH)) ||
	       (S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX));
}

/* path is resolved (absolute, no link, no ".."): it, then each directory up. */
static int check_chain(const char *path, uid_t owner)
{
	char dir[PATH_MAX];
	struct stat st;
	char *slash;

	if (stat(path, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	if (!trusted(&st, owner))
		return -EPERM;
	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	do {
		slash = strrchr(dir, '/');
		slash[slash == dir] = '\0';	/* "/usr" becomes "/" */
		if (stat(dir, &st))
			return -errno;
		if (!trusted(&st, owner))
			return -EPERM;
	} while (slash != dir);
	return 0;
}

static int candidate(const char *given, char *path, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (given)
		return snprintf(path, len, "%s", given) >= (int)len ? -ENAMETOOLONG : 0;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -errno;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	if (snprintf(path, len, "%s/%s", exe, MSPROF_AGENT_REL) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* A missing file is named by its directory's real path, if that exists. */
static void tidy(char *path, size_t len)
{
	char dir[PATH_MAX], real[PATH_MAX];
	char *slash;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return;
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	if (realpath(dir, real))
		snprintf(path, len, "%s/%s", real, slash + 1);
}

int agent_path_find(const char *given, char *path, size_t len)
{
	char real[PATH_MAX];
	struct stat self;
	int err;

	err = candidate(given, path, len);
	if (err)
		return err;
	if (!realpath(path, real)) {
		err = -errno;
		tidy(path, len);
		return err;
	}
	if (snprintf(path, len, "%s", real) >= (int)len)
		return -ENAMETOOLONG;
	if (strpbrk(real, ": \t\n"))
		return -EINVAL;
	if (stat("/proc/self/exe", &self))
		return -errno;
	return check_chain(real, self.st_uid);
}
