/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_FSUTIL_H
#define MSPROF_FSUTIL_H

#include <sys/types.h>

/* mkdir -p: every missing directory of path; 0 or -errno. */
int fsutil_mkdir_p(const char *path, mode_t mode);

/*
 * Opens the directory path as an O_DIRECTORY fd, making what is missing of
 * it with mode, one component at a time relative to the one before, so that
 * no name is looked up twice.  Refused: a last component that is a symbolic
 * link (-ELOOP), or an earlier one that is a link root does not own
 * (-ELOOP); something not a directory (-ENOTDIR); a last directory owned by
 * another user than root or us (-EPERM), or writable by group or others
 * without the sticky bit (-EACCES).  0 or -errno; nothing is made then
 * unless it was missing.
 */
int fsutil_dir_open_safe(const char *path, mode_t mode, int *fd);
/*
 * What a refusal of fsutil_dir_open_safe() means, as the end of a sentence
 * whose subject is the directory ("is owned by another user"); NULL for
 * any other error, which strerror() says.
 */
const char *fsutil_dir_open_problem(int err);

/*
 * Calls fn(dir, name, ctx) on every entry of dir but "." and "..", through
 * a descriptor of its own, so the walk starts at the beginning whoever read
 * dir before.  Every entry is visited; the first failure is returned.
 */
typedef int (*dir_entry_fn)(int dir, const char *name, void *ctx);
int fsutil_dir_for_each(int dir, dir_entry_fn fn, void *ctx);

/*
 * Creates path, never there before, beneath dir for writing: no link is
 * followed on the way, and no ".." leads out.
 */
int fsutil_create_at(int dir, const char *path, int *fd);
/* Makes name in dir, never there before, with the len bytes of buf; synced. */
int fsutil_write_new_at(int dir, const char *name, const void *buf, size_t len);
/*
 * Writes name in dir atomically: name.tmp is made anew with the len bytes
 * of buf, synced, renamed over name, and dir is synced.  A leftover
 * name.tmp is removed first: dir must be one only we write.
 */
int fsutil_write_replace_at(int dir, const char *name, const void *buf, size_t len);

/*
 * Creates ".<name>.<16 random hex digits>.tmp" in dir as fsutil_create_at() does,
 * a name no one can have planted; tmp receives it.  The fd or -errno.
 */
int fsutil_create_temp_at(int dir, const char *name, char *tmp, size_t len);
/*
 * Makes a fsutil_create_temp_at() file in dir holding the len bytes of buf,
 * synced; tmp receives its name.  0 or -errno, and no file then.
 */
int fsutil_write_temp_at(int dir, const char *name, const void *buf, size_t len,
		  char *tmp, size_t tmplen);
/*
 * 0 if the open directory fd is one only we (or root) can write: owned by
 * us or root, not writable by others, nor by a group other than ours or
 * root's.  -EPERM otherwise.
 */
int fsutil_dir_check_ours(int fd);

/*
 * Moves name of dir from, open as in, to a file of that name made anew in
 * to (fsutil_create_at()): size bytes at most of in, from its start, then
 * name unlinked from from.  0 or -errno; name is then left in from, and
 * no part of it in to.
 */
int fsutil_move_file_at(int from, const char *name, int in, off_t size, int to,
		 unsigned long long *bytes);
/*
 * rm -r of every entry of dir, never following a link or crossing a mount
 * point, emptying only directories owner owns, 8 levels deep at most (a
 * deeper tree is left).  Every entry is tried; the first failure is
 * returned.
 */
int fsutil_dir_remove_all(int dir, uid_t owner);
#endif
