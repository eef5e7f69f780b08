/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PROCFS_H
#define MSPROF_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Reads name from /proc/<pid>/environ; -ENOENT if it is not set. */
int procfs_getenv(int pid, const char *name, char *out, size_t len);
/* The pid the task sees itself as (last field of NSpid). */
int procfs_ns_pid(int pid, int *ns_pid);
int procfs_ppid(int pid, int *ppid);
int procfs_comm(int pid, char *out, size_t len);
int procfs_owner(int pid, uid_t *uid, gid_t *gid);
bool procfs_alive(int pid);
bool procfs_is_descendant(int pid, int ancestor);

/* Called once per distinct executable file mapping of pid. */
typedef int (*procfs_map_fn)(const char *path, void *ctx);
int procfs_exec_maps(int pid, procfs_map_fn fn, void *ctx);

#endif
