// SPDX-License-Identifier: MIT
/* Loading the BPF programs, attaching them for a window, reading them. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "common/growarr.h"
#include "common/printable.h"
#include "symcache.h"
#include "msprof.skel.h"
#include "probes.h"
#include "proc/procfs.h"
#include "tracer.h"
#include "uprobe_multi.h"

/*
 * Each uprobe link's detach waits for the kernel to sync (about 35 ms in a
 * VM: see uprobe_multi.c), but detaches that run at the same time share
 * that wait: the links go from up to DETACH_THREADS threads at once (on
 * this VM, 8 targets' 16 uprobe_multi links took 600 ms one after the
 * other, about 100 ms together), in the background of a stop's writing.
 */
#define DETACH_THREADS 16

/* A window's links, going. */
struct detach_work {
	int *fds;
	size_t nfds;
	struct bpf_link **links;
	size_t nlinks;
	size_t next;		/* the next link to go, taken atomically */
	pthread_t helpers[DETACH_THREADS];
	size_t nhelpers;
};

struct tracer {
	struct msprof_bpf *skel;
	struct ring_buffer *rb;
	bool multi;		/* the kernel takes uprobe_multi links */
	bool cookies;		/* else functions are told apart by address */
	struct bpf_link **links;	/* libbpf's: perf-event uprobes, tracepoints */
	size_t nlinks;
	size_t cap;
	int *link_fds;		/* our uprobe_multi links */
	size_t nfds;
	size_t fd_cap;
	/* The session's probe names and where each mapped file has them. */
	const char **names;
	struct symcache *syms;
	struct detach_work *detaching;	/* the last window's links, or NULL */
};

static int warnings_only(enum libbpf_print_level level, const char *fmt,
			 va_list ap)
{
	char line[1024];

	if (level != LIBBPF_WARN)
		return 0;
	/* It may name a library the task mapped, a path the task chose. */
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	return fprintf(stderr, "%s\n", printable(line));
}

/*
 * The pid namespace of a process (0: msprof), as
 * bpf_get_ns_current_pid_tgid() names it.
 */
static int pidns_of(int pid, struct msprof_target_info *ti)
{
	struct stat st;
	int err = procfs_ns(pid, "pid", &st);

	if (err)
		return err;
	ti->pidns_dev = st.st_dev;
	ti->pidns_ino = st.st_ino;
	return 0;
}

/*
 * Pids given to msprof are in its own pid namespace.  Outside the initial
 * one (msprof in a container) the kernel side must see ids the same way.
 */
static int set_view(struct msprof_bpf *skel)
{
	struct msprof_target_info own;
	int err = pidns_of(0, &own);

	if (err)
		return err;
	if (own.pidns_ino != PROC_PID_INIT_INO) {
		skel->rodata->view_ns_dev = own.pidns_dev;
		skel->rodata->view_ns_ino = own.pidns_ino;
	}
	return 0;
}

static int load(struct tracer *t, const struct tracer_config *cfg)
{
	struct msprof_bpf *skel = msprof_bpf__open();
	int err;

	if (!skel)
		return -errno;
	if (cfg->uprobe_multi) {
		bpf_program__set_expected_attach_type(skel->progs.api_enter,
						      MSPROF_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(skel->progs.api_exit,
						      MSPROF_TRACE_UPROBE_MULTI);
	}
	skel->rodata->ioctl_nr = SYS_ioctl;
	skel->rodata->ioctl_payload = cfg->ioctl_payload;
	skel->rodata->use_cookies = cfg->cookies;
	skel->rodata->wake_bytes = cfg->ringbuf_bytes / 4;
	err = set_view(skel);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.events,
					       (__u32)cfg->ringbuf_bytes);
	/* The entry-address map is for kernels without cookies only. */
	if (!err && cfg->cookies)
		err = bpf_map__set_max_entries(skel->maps.entry_ids, 1);
	if (!err)
		err = msprof_bpf__load(skel);
	if (err) {
		msprof_bpf__destroy(skel);
		return err;
	}
	t->skel = skel;
	t->multi = cfg->uprobe_multi;
	t->cookies = cfg->cookies;
	return 0;
}

int tracer_open(struct tracer **out, const struct tracer_config *cfg,
		ring_buffer_sample_fn on_event, void *ctx)
{
	struct tracer *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return -ENOMEM;
	/* One line of our own says what failed; libbpf's detail on demand. */
	libbpf_set_print(getenv("MSPROF_VERBOSE") ? warnings_only : NULL);
	err = load(t, cfg);
	if (err)
		goto fail;
	t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.events), on_event,
				 ctx, NULL);
	if (!t->rb) {
		err = -errno;
		goto fail;
	}
	*out = t;
	return 0;
fail:
	tracer_close(t);
	return err;
}

void tracer_close(struct tracer *t)
{
	if (!t)
		return;
	tracer_detach(t);
	free(t->links);
	free(t->link_fds);
	symcache_free(t->syms);
	free(t->names);
	ring_buffer__free(t->rb);
	msprof_bpf__destroy(t->skel);
	free(t);
}

int tracer_add_target(struct tracer *t, int pid)
{
	struct msprof_target_info ti = { 0 };
	__u32 key = (__u32)pid;
	int err;

	err = pidns_of(pid, &ti);
	if (err)
		return err;
	if (bpf_map__update_elem(t->skel->maps.targets, &key, sizeof(key),
				 &ti, sizeof(ti), BPF_ANY))
		return -errno;
	return 0;
}

int tracer_add_device(struct tracer *t, dev_t rdev)
{
	__u32 dev = MSPROF_KDEV(major(rdev), minor(rdev)), one = 1;

	if (bpf_map__update_elem(t->skel->maps.devs, &dev, sizeof(dev), &one,
				 sizeof(one), BPF_ANY))
		return -errno;
	return 0;
}

/*
 * A target gone takes its entry addresses along, so that followed children
 * that come and go cannot fill the map: live targets alone fit in it.
 */
static int forget_entries(struct tracer *t, __u32 tgid)
{
	int fd = bpf_map__fd(t->skel->maps.entry_ids);
	struct msprof_entry_key key, next, *gone = NULL, *slot;
	size_t n = 0, cap = 0, i;
	int err;

	for (err = bpf_map_get_next_key(fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(fd, &key, &next)) {
		key = next;
		if (key.tgid != tgid)
			continue;
		slot = growarr_push((void **)&gone, &n, &cap, sizeof(*gone));
		if (!slot) {
			free(gone);
			return -ENOMEM;
		}
		*slot = key;
	}
	/* Deleted after the walk: a deleted key would restart it. */
	for (i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &gone[i]);
	free(gone);
	return 0;
}

int tracer_target_lost(struct tracer *t, int host_pid, uint64_t *lost)
{
	struct msprof_target_info ti;
	__u32 key = (__u32)host_pid;

	*lost = 0;
	if (bpf_map__lookup_elem(t->skel->maps.targets, &key, sizeof(key), &ti,
				 sizeof(ti), 0))
		return errno == ENOENT ? 0 : -errno;
	*lost = ti.lost;
	return 0;
}

int tracer_remove_target(struct tracer *t, int host_pid)
{
	__u32 key = (__u32)host_pid;

	if (bpf_map__delete_elem(t->skel->maps.targets, &key, sizeof(key), 0) &&
	    errno != ENOENT)
		return -errno;
	return t->cookies ? 0 : forget_entries(t, key);
}

static int keep_link(struct tracer *t, struct bpf_link *link)
{
	struct bpf_link **slot;

	if (!link)
		return -errno;
	slot = growarr_push((void **)&t->links, &t->nlinks, &t->cap,
			    sizeof(*t->links));
	if (!slot) {
		bpf_link__destroy(link);
		return -ENOMEM;
	}
	*slot = link;
	return 0;
}

static int keep_link_fd(struct tracer *t, int fd)
{
	int *slot;

	if (fd < 0)
		return fd;
	slot = growarr_push((void **)&t->link_fds, &t->nfds, &t->fd_cap,
			    sizeof(*t->link_fds));
	if (!slot) {
		close(fd);
		return -ENOMEM;
	}
	*slot = fd;
	return 0;
}

static int attach_uprobe(struct tracer *t, int pid, const char *path,
			 uint64_t offset, size_t api_id, bool ret)
{
	/* libbpf refuses any cookie where the kernel has none. */
	LIBBPF_OPTS(bpf_uprobe_opts, opts,
		    .bpf_cookie = t->cookies ? api_id : 0, .retprobe = ret);
	struct bpf_program *prog = ret ? t->skel->progs.api_exit :
					 t->skel->progs.api_enter;

	return keep_link(t, bpf_program__attach_uprobe_opts(prog, pid, path,
							    (size_t)offset,
							    &opts));
}

/* The kernel's internal ENOTSUPP (an instruction it cannot probe). */
#define KERNEL_ENOTSUPP 524

struct attach_walk {
	struct tracer *t;
	int pid;
	const struct probe_set *ps;
	bool *done;		/* per probe: attached from an earlier library */
	uint64_t *batch_offsets;	/* this library's functions to probe */
	uint64_t *batch_ids;
	char *lib;		/* the library that failed, for the caller */
	size_t lib_len;
	struct stat exe;	/* the main program (st_ino 0: unknown) */
	struct tracer_refused *refused;
};

/* One uprobe_multi link for the entries, one for the returns. */
static int attach_batch_multi(struct tracer *t, int pid, const char *path,
			      const uint64_t *offsets, const uint64_t *ids,
			      size_t n)
{
	int err;

	/*
	 * Returns first: a call entering between the two attachments would
	 * otherwise leave a frame that no return pops.
	 */
	err = keep_link_fd(t, uprobe_multi_attach(
		bpf_program__fd(t->skel->progs.api_exit), path, offsets, ids, n,
		pid, true));
	if (!err)
		err = keep_link_fd(t, uprobe_multi_attach(
			bpf_program__fd(t->skel->progs.api_enter), path, offsets,
			ids, n, pid, false));
	return err;
}

/* Older kernels: a perf-event uprobe and uretprobe per function. */
static int attach_batch_each(struct tracer *t, int pid, const char *path,
			     const uint64_t *offsets, const uint64_t *ids,
			     size_t n)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < n; i++) {
		err = attach_uprobe(t, pid, path, offsets[i], ids[i], true);
		if (!err)
			err = attach_uprobe(t, pid, path, offsets[i], ids[i], false);
	}
	return err;
}

/*
 * Without cookies the entry probe knows a function by its address in the
 * task: this mapping's, for the functions that lie inside it.  The others
 * (in a second executable segment) are left out of the batch, whose new
 * length is *n.
 */
static int name_entries(struct tracer *t, int pid, const struct procfs_map *m,
			uint64_t *offsets, uint64_t *ids, size_t *n)
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
		if (bpf_map__update_elem(t->skel->maps.entry_ids, &key,
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
	struct tracer_refused *r = w->refused;

	if (*r->path) {
		r->others++;
		return;
	}
	snprintf(r->path, sizeof(r->path), "%s", path);
	snprintf(r->why, sizeof(r->why), "%s", why);
}

static int attach_library(const struct procfs_map *m, void *ctx)
{
	struct attach_walk *w = ctx;
	const char *file = m->file;
	const uint64_t *offsets;
	char full[PATH_MAX], why[sizeof(w->refused->why)];
	bool main_program;
	size_t i, n = 0;
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
	err = symcache_lookup(w->t->syms, file, &offsets, why, sizeof(why));
	if (err)
		note_refused(w, m->path, why);
	if (!offsets)
		return 0;	/* not an ELF file we can read, or nothing to probe */
	for (i = 0; i < w->ps->n; i++) {
		if (!offsets[i] || !wanted(w, i, m->path, main_program))
			continue;
		w->batch_offsets[n] = offsets[i];
		w->batch_ids[n++] = i;
	}
	if (!n)
		return 0;
	err = w->t->cookies ? 0 : name_entries(w->t, w->pid, m,
						w->batch_offsets,
						w->batch_ids, &n);
	if (!err && n)
		err = (w->t->multi ? attach_batch_multi : attach_batch_each)(
			w->t, w->pid, file, w->batch_offsets, w->batch_ids, n);
	if (err) {
		snprintf(w->lib, w->lib_len, "%s", m->path);
		return err == -KERNEL_ENOTSUPP ? -EOPNOTSUPP : err;
	}
	for (i = 0; i < n; i++)
		w->done[w->batch_ids[i]] = true;
	return 0;
}

/* The symbol cache belongs to the session's one probe set. */
static int ensure_symcache(struct tracer *t, const struct probe_set *ps)
{
	size_t i;

	if (t->syms)
		return 0;
	t->names = calloc(ps->n, sizeof(*t->names));
	if (!t->names)
		return -ENOMEM;
	for (i = 0; i < ps->n; i++)
		t->names[i] = ps->v[i].name;
	return symcache_new(&t->syms, t->names, ps->n);
}

int tracer_attach_target(struct tracer *t, int host_pid,
			 const struct probe_set *ps, bool *attached, char *lib,
			 size_t len, struct tracer_refused *refused)
{
	struct attach_walk w = {
		.t = t, .pid = host_pid, .ps = ps, .done = attached,
		.lib = lib, .lib_len = len, .refused = refused,
	};
	char exe[64];
	int err;

	if (len)
		*lib = '\0';
	memset(refused, 0, sizeof(*refused));
	memset(attached, 0, ps->n * sizeof(*attached));
	if (!ps->n)
		return 0;
	err = ensure_symcache(t, ps);
	if (err)
		return err;
	symcache_walk_begin(t->syms);
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

int tracer_attach_syscalls(struct tracer *t, bool follow)
{
	int err = keep_link(t, bpf_program__attach(t->skel->progs.ioctl_enter));

	if (!err)
		err = keep_link(t, bpf_program__attach(t->skel->progs.ioctl_exit));
	if (!err)
		err = keep_link(t, bpf_program__attach(t->skel->progs.thread_exit));
	if (!err && follow)
		err = keep_link(t, bpf_program__attach(t->skel->progs.task_fork));
	return err;
}

/* Deletes every key of a map; the map is tiny or quiet when this runs. */
static int clear_map(struct bpf_map *map)
{
	struct msprof_entry_key key, next;	/* the largest key cleared */
	int fd = bpf_map__fd(map);

	while (!bpf_map_get_next_key(fd, NULL, &next)) {
		memcpy(&key, &next, sizeof(key));
		if (bpf_map_delete_elem(fd, &key) && errno != ENOENT)
			return -errno;
	}
	return 0;
}

/* A window's losses count from its start; nothing records while closed. */
static int zero_losses(struct tracer *t)
{
	int fd = bpf_map__fd(t->skel->maps.targets);
	struct msprof_target_info ti;
	__u32 key, next;
	int err;

	for (err = bpf_map_get_next_key(fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(fd, &key, &next)) {
		key = next;
		if (bpf_map_lookup_elem(fd, &key, &ti) || !ti.lost)
			continue;
		ti.lost = 0;
		if (bpf_map_update_elem(fd, &key, &ti, BPF_EXIST) && errno != ENOENT)
			return -errno;
	}
	return errno == ENOENT ? 0 : -errno;
}

int tracer_set_gate(struct tracer *t, bool open)
{
	int err = 0;

	/* Calls that a detach cut in half must not pair with new ones. */
	if (open)
		err = clear_map(t->skel->maps.ioctls) ?: zero_losses(t);
	__atomic_store_n(&t->skel->bss->gate, open ? 1 : 0, __ATOMIC_SEQ_CST);
	return err;
}

static void *detach_some(void *arg)
{
	struct detach_work *w = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) <
	       w->nfds + w->nlinks) {
		if (i < w->nfds)
			close(w->fds[i]);
		else
			bpf_link__destroy(w->links[i - w->nfds]);
	}
	return NULL;
}

/* The links attached so far become w's to detach; t starts afresh. */
static void hand_over_links(struct tracer *t, struct detach_work *w)
{
	w->fds = t->link_fds;
	w->nfds = t->nfds;
	w->links = t->links;
	w->nlinks = t->nlinks;
	t->link_fds = NULL;
	t->nfds = t->fd_cap = 0;
	t->links = NULL;
	t->nlinks = t->cap = 0;
}

static void free_work(struct detach_work *w)
{
	free(w->fds);
	free(w->links);
	free(w);
}

void tracer_detach_begin(struct tracer *t)
{
	struct detach_work *w;

	tracer_detach_end(t);
	/*
	 * The window ends here, while its probes are still going: calls still
	 * open in the per-thread states are void from now on (their returns
	 * record nothing; tracer_unfinished counts them), and the next window
	 * needs no walk of the map to forget them.
	 */
	if (t->skel)
		__atomic_add_fetch(&t->skel->bss->window, 1, __ATOMIC_SEQ_CST);
	if (!t->nfds && !t->nlinks)
		return;
	w = calloc(1, sizeof(*w));
	if (!w) {
		/* No room to hand them over: they go here, now. */
		struct detach_work here = { 0 };

		hand_over_links(t, &here);
		detach_some(&here);
		free(here.fds);
		free(here.links);
		return;
	}
	hand_over_links(t, w);
	while (w->nhelpers < DETACH_THREADS &&
	       w->nhelpers < w->nfds + w->nlinks &&
	       !pthread_create(&w->helpers[w->nhelpers], NULL, detach_some, w))
		w->nhelpers++;
	/* Threads that cannot start leave the work to this one. */
	if (!w->nhelpers) {
		detach_some(w);
		free_work(w);
		return;
	}
	t->detaching = w;
}

void tracer_detach_end(struct tracer *t)
{
	struct detach_work *w = t->detaching;
	size_t i;

	if (w) {
		for (i = 0; i < w->nhelpers; i++)
			pthread_join(w->helpers[i], NULL);
		free_work(w);
		t->detaching = NULL;
	}
	/* Next window's libraries may be mapped elsewhere. */
	if (t->skel && !t->cookies)
		clear_map(t->skel->maps.entry_ids);
}

void tracer_detach(struct tracer *t)
{
	tracer_detach_begin(t);
	tracer_detach_end(t);
}

int tracer_fd(struct tracer *t)
{
	return ring_buffer__epoll_fd(t->rb);
}

int tracer_consume(struct tracer *t)
{
	int n = ring_buffer__consume(t->rb);

	return n < 0 ? n : 0;
}

/* pids[i]'s slot in open[], or NULL: the lists are short (targets). */
static uint64_t *open_slot(const int *pids, int n, uint64_t *open, __u32 pid)
{
	int i;

	for (i = 0; i < n; i++)
		if ((__u32)pids[i] == pid)
			return &open[i];
	return NULL;
}

int tracer_unfinished(struct tracer *t, const int *pids, int n, uint64_t *open)
{
	int sfd = bpf_map__fd(t->skel->maps.stacks);
	int ifd = bpf_map__fd(t->skel->maps.ioctls);
	/* The window tracer_detach_begin ended. */
	__u32 window = t->skel->bss->window - 1;
	struct msprof_pending_ioctl io;
	struct msprof_call_stack *st;
	__u32 key, next;
	uint64_t *slot;
	int err;

	memset(open, 0, (size_t)n * sizeof(*open));
	st = malloc(sizeof(*st));
	if (!st)
		return -ENOMEM;
	for (err = bpf_map_get_next_key(sfd, NULL, &next); !err;
	     err = bpf_map_get_next_key(sfd, &key, &next)) {
		key = next;
		if (!bpf_map_lookup_elem(sfd, &key, st) && st->window == window &&
		    (slot = open_slot(pids, n, open, st->tgid)))
			*slot += st->depth;
	}
	free(st);
	if (errno != ENOENT)
		return -errno;
	for (err = bpf_map_get_next_key(ifd, NULL, &next); !err;
	     err = bpf_map_get_next_key(ifd, &key, &next)) {
		key = next;
		if (!bpf_map_lookup_elem(ifd, &key, &io) &&
		    (slot = open_slot(pids, n, open, io.tgid)))
			(*slot)++;
	}
	return errno == ENOENT ? 0 : -errno;
}

int tracer_stats(struct tracer *t, uint64_t out[MSPROF_STAT_MAX])
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *vals;
	__u32 key;
	int i;

	if (ncpu < 0)
		return ncpu;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (key = 0; key < MSPROF_STAT_MAX; key++) {
		out[key] = 0;
		if (bpf_map__lookup_elem(t->skel->maps.stats, &key, sizeof(key),
					 vals, (size_t)ncpu * sizeof(*vals), 0)) {
			free(vals);
			return -errno;
		}
		for (i = 0; i < ncpu; i++)
			out[key] += vals[i];
	}
	free(vals);
	return 0;
}
