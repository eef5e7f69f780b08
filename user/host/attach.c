// SPDX-License-Identifier: MIT
/*
 * A target's probes: which of its mapped files are read for symbols, the
 * links per file (uprobe_multi, or one perf-event uprobe per function),
 * and without cookies the entry address of each function.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "attach.h"
#include "links.h"
#include "msprof/events.h"
#include "msprof/mstx.h"
#include "msprof/osrt.h"
#include "msprof.skel.h"
#include "symcache.h"
#include "proc/procfs.h"
#include "uprobe_multi.h"

/*
 * The programs a batch of functions is probed with: the API calls', the
 * user marks' (which read their message at entry), or the pthread calls'
 * of --host-sys=osrt (kept when they waited).  A layer of its own each.
 */
struct progs {
	struct bpf_program *enter;
	struct bpf_program *exit;
};

static struct progs progs_of(const struct attach_conf *c, unsigned int layer)
{
	if (layer == MSPROF_LAYER_MSTX)
		return (struct progs){ c->skel->progs.mstx_enter,
				       c->skel->progs.mstx_exit };
	if (layer == MSPROF_LAYER_OSRT)
		return (struct progs){ c->skel->progs.osrt_enter,
				       c->skel->progs.osrt_exit };
	return (struct progs){ c->skel->progs.api_enter, c->skel->progs.api_exit };
}

/* A layer with programs of its own; any other is the API calls'. */
static unsigned int group_of(unsigned int layer)
{
	return layer == MSPROF_LAYER_MSTX || layer == MSPROF_LAYER_OSRT ?
	       layer : MSPROF_LAYER_ACL;
}

_Static_assert(MSTX_KIND_SHIFT == OSRT_KIND_SHIFT && MSTX_API_MASK == OSRT_API_MASK,
	       "one cookie layout for the layers whose functions have kinds");

static int attach_uprobe(const struct attach_conf *c, const struct progs *pr,
			 int pid, const char *path, uint64_t offset,
			 size_t api_id, bool ret)
{
	/* libbpf refuses any cookie where the kernel has none. */
	LIBBPF_OPTS(bpf_uprobe_opts, opts,
		    .bpf_cookie = c->cookies ? api_id : 0, .retprobe = ret);
	struct bpf_program *prog = ret ? pr->exit : pr->enter;

	return link_set_keep(c->links,
			     bpf_program__attach_uprobe_opts(prog, pid, path,
							     (size_t)offset,
							     &opts));
}

/* The kernel's internal ENOTSUPP (an instruction it cannot probe). */
#define KERNEL_ENOTSUPP 524

struct attach_walk {
	const struct attach_conf *c;
	int pid;
	const struct probe_set *ps;
	bool *done;		/* per probe: attached from an earlier library */
	uint64_t *batch_offsets;	/* this library's functions to probe */
	uint64_t *batch_ids;
	char *lib;		/* the library that failed, for the caller */
	size_t lib_len;
	struct stat exe;	/* the main program (st_ino 0: unknown) */
	struct attach_refused *refused;
};

/* One uprobe_multi link for the entries, one for the returns. */
static int attach_batch_multi(const struct attach_conf *c,
			      const struct progs *pr, int pid, const char *path,
			      const uint64_t *offsets, const uint64_t *ids,
			      size_t n)
{
	int err;

	/*
	 * Returns first: a call entering between the two attachments would
	 * otherwise leave a frame that no return pops.
	 */
	err = link_set_keep_fd(c->links, uprobe_multi_attach(
		bpf_program__fd(pr->exit), path, offsets, ids, n, pid, true));
	if (!err)
		err = link_set_keep_fd(c->links, uprobe_multi_attach(
			bpf_program__fd(pr->enter), path, offsets, ids, n, pid,
			false));
	return err;
}

/* Older kernels: a perf-event uprobe and uretprobe per function. */
static int attach_batch_each(const struct attach_conf *c,
			     const struct progs *pr, int pid, const char *path,
			     const uint64_t *offsets, const uint64_t *ids,
			     size_t n)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < n; i++) {
		err = attach_uprobe(c, pr, pid, path, offsets[i], ids[i], true);
		if (!err)
			err = attach_uprobe(c, pr, pid, path, offsets[i], ids[i],
					    false);
	}
	return err;
}

/*
 * Without cookies the entry probe knows a function by its address in the
 * task: this mapping's, for the functions that lie inside it.  The others
 * (in a second executable segment) are left out of the batch, whose new
 * length is *n.
 */
static int name_entries(const struct attach_conf *c, int pid,
			const struct procfs_map *m, uint64_t *offsets,
			uint64_t *ids, size_t *n)
{
	struct msprof_entry_key key = { .tgid = (__u32)pid };
	size_t i, kept = 0;
	__u32 id;

	for (i = 0; i < *n; i++) {
		if (offsets[i] < m->pgoff ||
		    offsets[i] - m->pgoff >= m->end - m->start)
			continue;
		key.addr = m->start + offsets[i] - m->pgoff;
		id = (__u32)ids[i];
		if (bpf_map__update_elem(c->skel->maps.entry_ids, &key,
					 sizeof(key), &id, sizeof(id), BPF_ANY))
			return -errno;
		offsets[kept] = offsets[i];
		ids[kept++] = ids[i];
	}
	*n = kept;
	return 0;
}

/* Whether the file is the task's main program. */
static bool is_main_program(const struct attach_walk *w, const char *file)
{
	struct stat st;

	return w->exe.st_ino && !stat(file, &st) &&
	       st.st_dev == w->exe.st_dev && st.st_ino == w->exe.st_ino;
}

/* Whether function i is still to be found, and may be in this file. */
static bool wanted(const struct attach_walk *w, size_t i, const char *path,
		   bool main_program)
{
	const struct probe *p = &w->ps->v[i];

	return !w->done[i] &&
	       (probe_in_library(p, path) || (main_program && !p->lib));
}

static bool file_wanted(const struct attach_walk *w, const char *path,
			bool main_program)
{
	size_t i;

	for (i = 0; i < w->ps->n; i++)
		if (wanted(w, i, path, main_program))
			return true;
	return false;
}

static void note_refused(struct attach_walk *w, const char *path,
			 const char *why)
{
	struct attach_refused *r = w->refused;

	if (*r->path) {
		r->others++;
		return;
	}
	snprintf(r->path, sizeof(r->path), "%s", path);
	snprintf(r->why, sizeof(r->why), "%s", why);
}

/*
 * The file's functions of one group (user marks, pthread calls, or the
 * others) into one batch and attached with the group's programs.  A user
 * mark's or pthread call's cookie also says what it does (its kind:
 * include/msprof/mstx.h, osrt.h).
 */
static int attach_group(struct attach_walk *w, const struct procfs_map *m,
			const char *file, const uint64_t *offsets,
			bool main_program, unsigned int group)
{
	struct progs pr = progs_of(w->c, group);
	size_t i, n = 0;
	int err;

	for (i = 0; i < w->ps->n; i++) {
		const struct probe *p = &w->ps->v[i];

		if (!offsets[i] || !wanted(w, i, m->path, main_program) ||
		    group_of(p->layer) != group)
			continue;
		w->batch_offsets[n] = offsets[i];
		w->batch_ids[n++] = i | (uint64_t)msprof_probe_kind(p->name, p->layer)
					    << MSTX_KIND_SHIFT;
	}
	if (!n)
		return 0;
	err = w->c->cookies ? 0 : name_entries(w->c, w->pid, m,
						w->batch_offsets,
						w->batch_ids, &n);
	if (!err && n)
		err = (w->c->multi ? attach_batch_multi : attach_batch_each)(
			w->c, &pr, w->pid, file, w->batch_offsets,
			w->batch_ids, n);
	if (err) {
		snprintf(w->lib, w->lib_len, "%s", m->path);
		return err == -KERNEL_ENOTSUPP ? -EOPNOTSUPP : err;
	}
	for (i = 0; i < n; i++)
		w->done[w->batch_ids[i] & MSTX_API_MASK] = true;
	return 0;
}

static int attach_library(const struct procfs_map *m, void *ctx)
{
	struct attach_walk *w = ctx;
	const char *file = m->file;
	const uint64_t *offsets;
	char full[PATH_MAX], why[sizeof(w->refused->why)];
	bool main_program;
	int err;

	/*
	 * map_files needs CAP_SYS_ADMIN; without it, the path through the
	 * task's root, so that a library inside a container resolves.
	 */
	if (access(file, F_OK)) {
		if (snprintf(full, sizeof(full), "/proc/%d/root%s", w->pid,
			     m->path) >= (int)sizeof(full))
			return 0;
		file = full;
	}
	/* Only a file a probe may be in is read: the task chose them all. */
	main_program = is_main_program(w, file);
	if (!file_wanted(w, m->path, main_program))
		return 0;
	err = symcache_lookup(w->c->syms, file, &offsets, why, sizeof(why));
	if (err)
		note_refused(w, m->path, why);
	if (!offsets)
		return 0;	/* not an ELF file we can read, or nothing to probe */
	err = attach_group(w, m, file, offsets, main_program, MSPROF_LAYER_ACL);
	err = err ?: attach_group(w, m, file, offsets, main_program,
				  MSPROF_LAYER_MSTX);
	return err ?: attach_group(w, m, file, offsets, main_program,
				   MSPROF_LAYER_OSRT);
}

int attach_probes(const struct attach_conf *c, int host_pid,
		  const struct probe_set *ps, bool *attached, char *lib,
		  size_t lib_len, struct attach_refused *refused)
{
	struct attach_walk w = {
		.c = c, .pid = host_pid, .ps = ps, .done = attached,
		.lib = lib, .lib_len = lib_len, .refused = refused,
	};
	char exe[64];
	int err;

	symcache_walk_begin(c->syms);
	snprintf(exe, sizeof(exe), "/proc/%d/exe", host_pid);
	if (stat(exe, &w.exe))
		w.exe.st_ino = 0;	/* then no file is taken for it */
	err = -ENOMEM;
	w.batch_offsets = calloc(ps->n, sizeof(*w.batch_offsets));
	w.batch_ids = calloc(ps->n, sizeof(*w.batch_ids));
	if (w.batch_offsets && w.batch_ids)
		err = procfs_exec_maps(host_pid, attach_library, &w);
	free(w.batch_offsets);
	free(w.batch_ids);
	return err;
}
