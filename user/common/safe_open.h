/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_SAFE_OPEN_H
#define MSPROF_SAFE_OPEN_H

#include <stddef.h>
#include <sys/stat.h>

/*
 * openat() that follows no link on the way, magic /proc ones included,
 * crosses no mount point and never leaves dirfd (no "..", no absolute
 * path).  The fd or -errno.
 */
int safe_openat_beneath(int dirfd, const char *path, int flags, mode_t mode);

/*
 * Opens path (relative, no "..") for reading under dirfd without following
 * any symbolic link or leaving dirfd, and without blocking on a FIFO; only a
 * regular file is kept.  Returns the fd (st filled) or -errno: -ELOOP for a
 * link on the way, -EISDIR for a directory, -EINVAL for anything else that
 * is not a regular file.
 */
int safe_open_beneath(int dirfd, const char *path, struct stat *st);

/* The same for a file given by path, with only its last component a link. */
int safe_open_nofollow(const char *path, struct stat *st);

/*
 * Reads the whole of a small file beneath dirfd (as safe_open_beneath) into
 * text, NUL-terminated: -EFBIG if it does not fit cap - 1 bytes, -EPROTO if
 * it shrank while read.
 */
int safe_read_small_beneath(int dirfd, const char *path, char *text, size_t cap);

/* What an error of open_file_*() means, for a message. */
const char *safe_open_strerror(int err);

#endif
