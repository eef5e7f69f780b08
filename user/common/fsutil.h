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
/* All len bytes of buf to fd (retrying short writes and EINTR): 0 or -errno. */
int fsutil_write_all(int fd, const void *buf, size_t len);
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
 * What a run of copies may write: max bytes in all, counted on the bytes
 * written (a hole kept is none), and on the destination's file system a
 * reserve left free, FSUTIL_RESERVE_PERCENT of its blocks and of its
 * inodes, at most FSUTIL_RESERVE_MAX bytes and FSUTIL_RESERVE_INODES
 * inodes, so that root's other writers still find room there.
 */
#define FSUTIL_RESERVE_PERCENT 5
#define FSUTIL_RESERVE_MAX (1ull << 30)
#define FSUTIL_RESERVE_INODES 65536

enum fsutil_refusal {
	FSUTIL_FITS,
	FSUTIL_OVER_BUDGET,	/* max would be passed */
	FSUTIL_OVER_RESERVE,	/* the free space would go into the reserve */
	FSUTIL_OVER_INODES,	/* the free inodes are down to theirs */
};

struct fsutil_budget {
	unsigned long long max;		/* bytes the run may write */
	unsigned long long used;	/* bytes it wrote */
	enum fsutil_refusal refused;	/* why fsutil_room() last said no */
	unsigned long long reserve;	/* the reserve it kept then (bytes, inodes) */
};

/*
 * Whether need more bytes fit b, and on fd's file system (any fd there)
 * leave its reserve free: 0, or -ENOSPC with b->refused saying why;
 * -errno if the file system cannot be asked.
 */
int fsutil_room(int fd, struct fsutil_budget *b, unsigned long long need);
/* b->refused as the end of a sentence ("past the copy budget of 4 GiB"). */
const char *fsutil_refusal_text(const struct fsutil_budget *b, char *buf, size_t len);
/* n bytes as people read them: "4 GiB", "5.2 MiB", "100 bytes". */
const char *fsutil_size_text(unsigned long long n, char *buf, size_t len);
/*
 * Copies the first size bytes of in into out, new and empty, at the same
 * offsets: in's data only, its holes left holes (SEEK_DATA, SEEK_HOLE), so
 * a copy never takes more blocks than its source's data.  All of the
 * data must fit b (fsutil_room()) before a byte is written, and each piece
 * again as it is written (holes filled meanwhile count), adding to
 * b->used what was written.  0 or -errno: -ENOSPC with b->refused set
 * when b said no, -ENODATA when in ended before size.  out is not synced.
 */
int fsutil_copy_data(int in, off_t size, int out, struct fsutil_budget *b);
/*
 * Moves name of dir from, open as in, to a file of that name made anew in
 * to (fsutil_create_at()): the first size bytes of in by
 * fsutil_copy_data(), synced, then name unlinked from from.  0 or -errno;
 * name is then left in from, and no part of it in to.
 */
int fsutil_move_file_at(int from, const char *name, int in, off_t size, int to,
			struct fsutil_budget *b);
/*
 * rm -r of every entry of dir, never following a link or crossing a mount
 * point, emptying only directories owner owns, 8 levels deep at most (a
 * deeper tree is left).  Every entry is tried; the first failure is
 * returned.
 */
int fsutil_dir_remove_all(int dir, uid_t owner);
#endif
