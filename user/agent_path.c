// SPDX-License-Identifier: MIT
/*
 * Finding the agent launch mode preloads.  msprof runs as root and the app
 * it launches runs as root too: the library must be no easier to replace
 * than msprof itself.
 */
#include <errno.h>
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

/* ap->path is resolved (absolute, no link, no ".."): it, then each directory up. */
static int check_chain(struct agent_path *ap, uid_t owner)
{
	char *dir = ap->refused, *slash;
	struct stat st;

	strcpy(dir, ap->path);
	if (stat(dir, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	while (trusted(&st, owner)) {
		slash = strrchr(dir, '/');
		if (slash == dir && !dir[1])
			return 0;	/* "/" itself was the last */
		slash[slash == dir] = '\0';	/* "/usr" becomes "/" */
		if (stat(dir, &st))
			return -errno;
	}
	return -EPERM;
}

static int candidate(const char *given, char *path)
{
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (given)
		return snprintf(path, PATH_MAX, "%s", given) >= PATH_MAX ?
		       -ENAMETOOLONG : 0;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -errno;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	if (snprintf(path, PATH_MAX, "%s/%s", exe, MSPROF_AGENT_REL) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/* A missing file is named by its directory's real path, if that exists. */
static void tidy(char *path)
{
	char dir[PATH_MAX], real[PATH_MAX], tidied[PATH_MAX];
	char *slash;

	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	if (realpath(dir, real) &&
	    snprintf(tidied, sizeof(tidied), "%s/%s", real, slash + 1) < PATH_MAX)
		strcpy(path, tidied);
}

int agent_path_find(const char *given, struct agent_path *ap)
{
	char real[PATH_MAX];
	struct stat self;
	int err;

	ap->refused[0] = '\0';
	err = candidate(given, ap->path);
	if (err)
		return err;
	if (!realpath(ap->path, real)) {
		err = -errno;
		tidy(ap->path);
		return err;
	}
	strcpy(ap->path, real);
	if (strpbrk(real, ": \t\n"))
		return -EINVAL;
	if (stat("/proc/self/exe", &self))
		return -errno;
	return check_chain(ap, self.st_uid);
}
