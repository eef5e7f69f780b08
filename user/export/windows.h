/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_WINDOWS_H
#define MSPROF_WINDOWS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * What a mode that reads PROF_ directories (--export=on, --analyze=on)
 * does with each: one() gets the window open as fd and a label naming it,
 * and returns 0 (done whole), 1 (done, with less than the window held) or
 * -errno, having reported why.  verb and done name the mode in messages:
 * "export", "exported".
 */
struct window_walk {
	const char *verb;
	const char *done;
	int (*one)(int fd, const char *label, void *ctx);
	void *ctx;
};

/*
 * dir is a PROF_ directory or one holding some: w->one() on each, and one
 * line naming every entry not done whole.  0 only when all were.
 */
int windows_walk(const char *dir, const struct window_walk *w);

/*
 * The directory name, made 0750 or found, in the window open as dirfd: it
 * must be a directory of ours that no one else can write, since files are
 * made in it.  The fd or -errno (-EPERM: someone else's); *made says
 * whether this call made it.
 */
int windows_output_dir_open(int dirfd, const char *name, bool *made);
/* Why windows_output_dir_open() refused name, as a message. */
void windows_output_dir_strerror(char *buf, size_t len, const char *name, int err);

#endif
