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
#include "attach.h"
#include "links.h"
#include "sched_hooks.h"
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
	struct link_set links;
	size_t next;		/* the next link to go, taken atomically */
	pthread_t helpers[DETACH_THREADS];
	size_t nhelpers;
};

struct tracer {
	struct msprof_bpf *skel;
	struct ring_buffer *rb;
	bool multi;		/* the kernel takes uprobe_multi links */
	bool cookies;		/* else functions are told apart by address */
	bool sched;		/* the thread-state hooks are loaded */
	struct link_set attached;	/* this window's, so far */
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
		bpf_program__set_expected_attach_type(skel->progs.mstx_enter,
						      MSPROF_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(skel->progs.mstx_exit,
						      MSPROF_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(skel->progs.osrt_enter,
						      MSPROF_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(skel->progs.osrt_exit,
						      MSPROF_TRACE_UPROBE_MULTI);
	}
	skel->rodata->ioctl_nr = SYS_ioctl;
	skel->rodata->prctl_nr = SYS_prctl;
#if defined(__x86_64__)
	/* Numbers newer than the build's headers: fixed in the x86_64 ABI. */
	skel->rodata->uretprobe_nr = 335;
	skel->rodata->uprobe_nr = 336;
#endif
	skel->rodata->osrt = cfg->osrt;
	skel->rodata->osrt_threshold_ns = cfg->osrt_threshold_ns;
	skel->rodata->ioctl_payload = cfg->ioctl_payload;
	skel->rodata->use_cookies = cfg->cookies;
	skel->rodata->wake_bytes = cfg->ringbuf_bytes / 4;
	err = set_view(skel);
	/* A switching thread's ids are the host's: no use in a container's view. */
	t->sched = cfg->sched && !skel->rodata->view_ns_ino;
	sched_hooks_configure(skel, t->sched);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.events,
					       (__u32)cfg->ringbuf_bytes);
	/* The entry-address map is for kernels without cookies only. */
	if (!err && cfg->cookies)
		err = bpf_map__set_max_entries(skel->maps.entry_ids, 1);
	if (!err)
		err = msprof_bpf__load(skel);
	if (!err && t->sched)
		err = sched_hooks_learn(skel);
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
	link_set_free(&t->attached);
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
	sched_hooks_mark(t->skel, key);
	return 0;
}

static int add_device(dev_t rdev, void *tracer)
{
	struct tracer *t = tracer;
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
	tracer_set_python(t, host_pid, NULL);
	return t->cookies ? 0 : forget_entries(t, key);
}

int tracer_set_python(struct tracer *t, int host_pid,
		      const struct msprof_py_conf *conf)
{
	__u32 key = (__u32)host_pid;

	if (!conf)
		return bpf_map__delete_elem(t->skel->maps.pyconf, &key,
					    sizeof(key), 0) && errno != ENOENT ?
		       -errno : 0;
	if (bpf_map__update_elem(t->skel->maps.pyconf, &key, sizeof(key), conf,
				 sizeof(*conf), BPF_ANY))
		return -errno;
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

int tracer_filter_devices(struct tracer *t, int host_pid)
{
	return probe_devices(host_pid, add_device, t);
}

int tracer_arm_target(struct tracer *t, int host_pid,
		      const struct probe_set *ps, struct tracer_armed *a)
{
	struct attach_conf c = {
		.skel = t->skel, .multi = t->multi, .cookies = t->cookies,
		.links = &t->attached,
	};
	int err;

	memset(a, 0, sizeof(*a));
	if (!ps->n)
		return 0;
	err = ensure_symcache(t, ps);
	if (err)
		return err;
	c.syms = t->syms;
	return attach_probes(&c, host_pid, ps, a->attached, a->lib,
			     sizeof(a->lib), &a->refused);
}

int tracer_attach_syscalls(struct tracer *t, bool follow)
{
	struct msprof_bpf *skel = t->skel;
	int err = link_set_keep(&t->attached,
				bpf_program__attach(skel->progs.ioctl_enter));

	if (!err)
		err = link_set_keep(&t->attached,
				    bpf_program__attach(skel->progs.ioctl_exit));
	if (!err)
		err = link_set_keep(&t->attached,
				    bpf_program__attach(skel->progs.thread_exit));
	if (!err && follow)
		err = link_set_keep(&t->attached,
				    bpf_program__attach(skel->progs.task_fork));
	return err;
}

bool tracer_has_sched(const struct tracer *t)
{
	return t->sched;
}

int tracer_attach_sched(struct tracer *t)
{
	return t->sched ? sched_hooks_attach(t->skel, &t->attached) : -ENOTSUP;
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
		err = clear_map(t->skel->maps.ioctls) ?: zero_losses(t) ?:
		      sched_hooks_mark_all(t->skel);
	__atomic_store_n(&t->skel->bss->gate, open ? 1 : 0, __ATOMIC_SEQ_CST);
	return err;
}

static void *detach_some(void *arg)
{
	struct detach_work *w = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) <
	       w->links.nfds + w->links.nlinks) {
		if (i < w->links.nfds)
			close(w->links.fds[i]);
		else
			bpf_link__destroy(w->links.links[i - w->links.nfds]);
	}
	return NULL;
}

/* The links attached so far become w's to detach; t starts afresh. */
static void hand_over_links(struct tracer *t, struct detach_work *w)
{
	w->links = t->attached;
	t->attached = (struct link_set){ 0 };
}

static void free_work(struct detach_work *w)
{
	link_set_free(&w->links);
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
	if (!t->attached.nfds && !t->attached.nlinks)
		return;
	w = calloc(1, sizeof(*w));
	if (!w) {
		/* No room to hand them over: they go here, now. */
		struct detach_work here = { 0 };

		hand_over_links(t, &here);
		detach_some(&here);
		link_set_free(&here.links);
		return;
	}
	hand_over_links(t, w);
	while (w->nhelpers < DETACH_THREADS &&
	       w->nhelpers < w->links.nfds + w->links.nlinks &&
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
	/* No hook is left to read them: the next gate opening marks afresh. */
	if (t->skel)
		sched_hooks_clear(t->skel);
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
		/* Its calls open, and with osrt its syscall open. */
		if (!bpf_map_lookup_elem(sfd, &key, st) && st->window == window &&
		    (slot = open_slot(pids, n, open, st->tgid)))
			*slot += st->depth + (st->sys_start != 0);
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
