/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PROCFS_H
#define MSPROF_PROCFS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The inode of the initial pid namespace, fixed by the kernel. */
#define PROC_PID_INIT_INO 0xEFFFFFFCu

/*
 * What another process's /proc entries say.  Those that wait on its exec
 * lock (stat, environ, maps, ns/<kind>, root and everything under it) are read
 * in msprof's reader (procread.h): -ETIMEDOUT past its deadline, -EINTR if
 * a signal came.  status, comm and the /proc/<pid> directory itself are
 * read here: the kernel fills them in under spinlocks only.
 */

/*
 * Reads name from /proc/<pid>/environ; -ENOENT if it is not set,
 * -ENAMETOOLONG if its value does not fit len (PATH_MAX at most: -EINVAL),
 * -E2BIG if it is not within the first 8 MiB.  The _at form reads the
 * environ block of the file at path (opened and read in the reader too).
 */
int procfs_getenv(int pid, const char *name, char *out, size_t len);
int procfs_getenv_at(const char *path, const char *name, char *out, size_t len);
/*
 * The task's rank as msprof's runtime reports it: RANK_ID, else RANK, each
 * taken only if all digits (common/rankid.h); -1 if neither is.
 */
int procfs_rank_id(int pid);
/* The pid the task sees itself as (last field of NSpid). */
int procfs_ns_pid(int pid, int *ns_pid);
/* The last pid of an NSpid field's value ("\t12\t3\n"); -EPROTO if none. */
int procfs_parse_nspid(const char *field, int *ns_pid);
/* The process a thread id belongs to (the id itself for a process). */
int procfs_tgid(int pid, int *tgid);
int procfs_is_kthread(int pid, bool *kthread);
/*
 * When the process started (clock ticks after boot): with the pid, names
 * one process even after the pid is reused.  -ESRCH if it is gone (or its
 * stat makes no sense), -ETIMEDOUT or -EINTR as above.
 */
int procfs_start_time(int pid, unsigned long long *ticks);
/* Whether pid is the init of the initial (host) pid namespace. */
int procfs_is_host_init(int pid, bool *init);
int procfs_comm(int pid, char *out, size_t len);
int procfs_owner(int pid, uid_t *uid, gid_t *gid);
bool procfs_alive(int pid);
/*
 * stat() of pid's namespace of a kind ("mnt", "pid", ...); pid 0 is msprof
 * itself.  Its st_dev and st_ino name the namespace.
 */
int procfs_ns(int pid, const char *kind, struct stat *st);
/* Whether pid is in msprof's own namespace of a kind. */
int procfs_same_ns(int pid, const char *kind, bool *same);
/*
 * Opens path (as the task sees it) inside the task's root directory: its
 * symbolic links resolve there too, never into msprof's own root.  It can
 * wait for good (the task's exec, a FUSE daemon under its root): only for
 * what runs in the reader (procread_run).
 */
int procfs_open_in_root(int pid, const char *path, int flags, int *fd);
/*
 * In the reader: opens path inside the task's root as procfs_open_in_root
 * does, and *st is what fstat() says of it, or, with name, what
 * fstatat(AT_SYMLINK_NOFOLLOW) says of name in it (path a directory).
 * With fd, the opened path is handed back there.  -ETIMEDOUT past the
 * reader's deadline.
 */
int procfs_stat_in_root(int pid, const char *path, const char *name,
			int flags, struct stat *st, int *fd);
bool procfs_is_descendant(int pid, int ancestor);

/*
 * An executable mapping: path as the task names it, file the mapped file
 * itself (/proc/<pid>/map_files/...), which the task cannot swap for another
 * file, a link or a FIFO after mapping it; [start, end) maps the file from
 * offset pgoff.
 */
struct procfs_map {
	const char *path;
	const char *file;
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
};

/* Called once per distinct file, with its first executable mapping. */
typedef int (*procfs_map_fn)(const struct procfs_map *m, void *ctx);
int procfs_exec_maps(int pid, procfs_map_fn fn, void *ctx);

#endif
