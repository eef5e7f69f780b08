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

/* msprof's executable: its real path and its owner. */
struct self {
	char exe[PATH_MAX];
	uid_t owner;
};

/* Only root and whoever could replace msprof itself may change it. */
static bool trusted(const struct stat *st, uid_t owner)
{
	if (st->st_uid != 0 && st->st_uid != owner)
		return false;
	/* A sticky directory keeps others from renaming what is in it. */
	return !(st->st_mode & (S_IWGRP | S_IWOTH)) ||
	       (S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX));
}

/* Whoever can change a directory above msprof can replace msprof too. */
static bool above_self(const char *dir, const struct self *self)
{
	size_t n = strlen(dir);

	return !strncmp(self->exe, dir, n) &&
	       (self->exe[n] == '/' || (n == 1 && *dir == '/'));
}

/*
 * ap->path is resolved (absolute, no link, no ".."): it, then each
 * directory up to the first that also holds msprof.
 */
static int check_chain(struct agent_path *ap, const struct self *self)
{
	char *dir = ap->refused, *slash;
	struct stat st;

	strcpy(dir, ap->path);
	if (stat(dir, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	while (trusted(&st, self->owner)) {
		slash = strrchr(dir, '/');
		slash[slash == dir] = '\0';	/* "/usr" becomes "/" */
		if (above_self(dir, self)) {
			dir[0] = '\0';
			return 0;
		}
		if (stat(dir, &st))
			return -errno;
	}
	return -EPERM;
}

static int candidate(const char *given, const struct self *self, char *path)
{
	int n;

	if (given)
		n = snprintf(path, PATH_MAX, "%s", given);
	else
		n = snprintf(path, PATH_MAX, "%.*s/%s",
			     (int)(strrchr(self->exe, '/') - self->exe),
			     self->exe, MSPROF_AGENT_REL);
	return n >= PATH_MAX ? -ENAMETOOLONG : 0;
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
	struct self self;
	struct stat st;
	ssize_t n;
	int err;

	ap->path[0] = ap->refused[0] = '\0';
	/* The kernel's own record of what runs: absolute, links resolved. */
	n = readlink("/proc/self/exe", self.exe, sizeof(self.exe) - 1);
	if (n < 0 || stat("/proc/self/exe", &st))
		return -errno;
	self.exe[n] = '\0';
	self.owner = st.st_uid;
	err = candidate(given, &self, ap->path);
	if (err)
		return err;
	if (!realpath(ap->path, real)) {
		err = -errno;
		tidy(ap->path);
		return err;
	}
	strcpy(ap->path, real);
	/* ld.so splits LD_PRELOAD at these and expands $ORIGIN, $LIB... */
	if (strpbrk(real, ": \t\n$"))
		return -EINVAL;
	return check_chain(ap, &self);
}
