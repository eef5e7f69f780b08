/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_COLLECT_H
#define MSPROF_COLLECT_H

/*
 * msprof --collect=<dest> <src>...: copies every PROF_ directory of the
 * srcs (each a PROF_ directory or one holding some, as rpdcp, scp or a
 * shared file system left them) into dest, the flat layout msprof-analyze
 * cluster reads.  A copy is made whole in a staging directory inside dest
 * and renamed in, a name already in dest given a suffix; a source holding
 * a link, a special file, too deep a tree or too much is refused and
 * nothing of it stays.  0 only when every PROF_ directory was collected.
 */
int collect_run(const char *dest, char *const *srcs);

#endif
