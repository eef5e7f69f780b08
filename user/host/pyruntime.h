/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PYRUNTIME_H
#define MSPROF_PYRUNTIME_H

#include <limits.h>
#include <stdint.h>

#include "msprof/pystack.h"
#include "pyoffsets.h"

/* A target's CPython, as found at a window's start. */
struct pyruntime {
	int pid;			/* as msprof sees it */
	struct pyoffsets off;		/* the table's, checked against the task's */
	uint64_t code_type;		/* &PyCode_Type in the task */
	struct msprof_py_conf conf;	/* for the kernel's walk */
	unsigned int depth;		/* frames kept a call, shims dropped */
	char path[PATH_MAX];		/* the interpreter's file, as the task names it */
};

/*
 * Finds host_pid's CPython (its main program or a libpython it maps),
 * its version and layout, and glibc's layout of its thread key, and checks
 * them on the task's own thread states.  0: py is filled (depth frames
 * kept a call); -ENOENT: no CPython in the task; else why[len] says why there
 * are no stacks (a version with no table, a check that failed).
 */
int pyruntime_find(int host_pid, unsigned int depth, struct pyruntime *py,
		   char *why, size_t len);

#endif
