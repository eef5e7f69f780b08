/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_AGENT_PATH_H
#define MSPROF_AGENT_PATH_H

#include <limits.h>

struct agent_path {
	char path[PATH_MAX];	/* the agent, resolved once it exists */
	char refused[PATH_MAX];	/* -EPERM: the file or directory at fault */
};

/*
 * The agent library launch mode preloads into the app: given (MSPROF_AGENT)
 * if not NULL, else the one installed beside msprof (MSPROF_AGENT_REL from
 * the directory of /proc/self/exe).  ap->path names it even on failure, so
 * that the error can.  0, or -errno:
 *   -ENOENT and the like  the file is not there;
 *   -EPERM   it or a directory above it (ap->refused) belongs to another
 *            user than root or msprof's own executable's owner, or others
 *            can write it; directories that hold msprof's executable too
 *            are not held against it: whoever controls them controls msprof;
 *   -EINVAL  its name holds ':', a blank or '$', which LD_PRELOAD cannot
 *            carry as they are;
 *   -ENOEXEC it is not a regular file.
 */
int agent_path_find(const char *given, struct agent_path *ap);

#endif
