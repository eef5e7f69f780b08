// SPDX-License-Identifier: MIT
/* Loading the BPF programs, attaching them for a window, reading them. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "elfsym.h"
#include "msprof.skel.h"
#include "probes.h"
#include "procfs.h"
#include "tracer.h"

struct tracer {
	struct msprof_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link **links;
	size_t nlinks;
	size_t cap;
};

static int quiet_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level != LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int tracer_open(struct tracer **out, size_t ringbuf_bytes,
		ring_buffer_sample_fn on_event, void *ctx)
{
	struct tracer *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return -ENOMEM;
	libbpf_set_print(quiet_libbpf);
	t->skel = msprof_bpf__open();
	if (!t->skel) {
		err = -errno;
		goto fail;
	}
	t->skel->rodata->ioctl_nr = SYS_ioctl;
	err = bpf_map__set_max_entries(t->skel->maps.events, (__u32)ringbuf_bytes);
	if (!err)
		err = msprof_bpf__load(t->skel);
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
	ring_buffer__free(t->rb);
	msprof_bpf__destroy(t->skel);
	free(t);
}

int tracer_add_target(struct tracer *t, int host_pid)
{
	__u32 key = (__u32)host_pid, one = 1;

	if (bpf_map__update_elem(t->skel->maps.targets, &key, sizeof(key),
				 &one, sizeof(one), BPF_ANY))
		return -errno;
	return 0;
}

int tracer_remove_target(struct tracer *t, int host_pid)
{
	__u32 key = (__u32)host_pid;

	if (bpf_map__delete_elem(t->skel->maps.targets, &key, sizeof(key), 0) &&
	    errno != ENOENT)
		return -errno;
	return 0;
}

int tracer_add_device(struct tracer *t, const char *path)
{
	struct stat st;
	__u32 dev, one = 1;

	if (stat(path, &st))
		return -errno;
	if (!S_ISCHR(st.st_mode))
		return -ENOTTY;
	dev = MSPROF_KDEV(major(st.st_rdev), minor(st.st_rdev));
	if (bpf_map__update_elem(t->skel->maps.devs, &dev, sizeof(dev), &one,
				 sizeof(one), BPF_ANY))
		return -errno;
	return 0;
}

static int keep_link(struct tracer *t, struct bpf_link *link)
{
	if (!link)
		return -errno;
	if (t->nlinks == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct bpf_link **links = realloc(t->links, cap * sizeof(*links));

		if (!links) {
			bpf_link__destroy(link);
			return -ENOMEM;
		}
		t->links = links;
		t->cap = cap;
	}
	t->links[t->nlinks++] = link;
	return 0;
}

static int attach_uprobe(struct tracer *t, int pid, const char *path,
			 uint64_t offset, size_t api_id, bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = api_id,
		    .retprobe = ret);
	struct bpf_program *prog = ret ? t->skel->progs.api_exit :
					 t->skel->progs.api_enter;

	return keep_link(t, bpf_program__attach_uprobe_opts(prog, pid, path,
							    (size_t)offset,
							    &opts));
}

struct attach_walk {
	struct tracer *t;
	int pid;
	const char **names;
	uint64_t *offsets;
	bool *done;		/* per api: attached from an earlier library */
	size_t attached;
};

static int attach_library(const char *path, void *ctx)
{
	struct attach_walk *w = ctx;
	char full[PATH_MAX];
	size_t i;
	int n, err;

	/* Through the task's root, so a library inside a container resolves. */
	if (snprintf(full, sizeof(full), "/proc/%d/root%s", w->pid, path) >=
	    (int)sizeof(full))
		return 0;
	n = elf_find_funcs(full, w->names, probe_napis, w->offsets);
	if (n <= 0)
		return 0;	/* not an ELF file we can read, or nothing to probe */
	for (i = 0; i < probe_napis; i++) {
		if (!w->offsets[i] || w->done[i])
			continue;
		err = attach_uprobe(w->t, w->pid, full, w->offsets[i], i, false);
		if (!err)
			err = attach_uprobe(w->t, w->pid, full, w->offsets[i], i, true);
		if (err) {
			fprintf(stderr, "msprof: cannot probe %s in %s: %s\n",
				w->names[i], path, strerror(-err));
			return err;
		}
		w->done[i] = true;
		w->attached++;
	}
	return 0;
}

int tracer_attach_target(struct tracer *t, int host_pid, size_t *attached)
{
	struct attach_walk w = { .t = t, .pid = host_pid };
	int err = -ENOMEM;

	w.names = calloc(probe_napis, sizeof(*w.names));
	w.offsets = calloc(probe_napis, sizeof(*w.offsets));
	w.done = calloc(probe_napis, sizeof(*w.done));
	if (w.names && w.offsets && w.done) {
		probe_names(w.names);
		err = procfs_exec_maps(host_pid, attach_library, &w);
	}
	free(w.names);
	free(w.offsets);
	free(w.done);
	*attached = w.attached;
	return err;
}

int tracer_attach_syscalls(struct tracer *t)
{
	int err = keep_link(t, bpf_program__attach(t->skel->progs.ioctl_enter));

	if (!err)
		err = keep_link(t, bpf_program__attach(t->skel->progs.ioctl_exit));
	return err;
}

/* Deletes every key of a map; the map is tiny or quiet when this runs. */
static int clear_map(struct bpf_map *map)
{
	__u32 key, next;
	int fd = bpf_map__fd(map);

	while (!bpf_map_get_next_key(fd, NULL, &next)) {
		key = next;
		if (bpf_map_delete_elem(fd, &key) && errno != ENOENT)
			return -errno;
	}
	return 0;
}

int tracer_set_gate(struct tracer *t, bool open)
{
	int err = 0;

	if (open) {
		/* Calls that a detach cut in half must not pair with new ones. */
		err = clear_map(t->skel->maps.stacks);
		if (!err)
			err = clear_map(t->skel->maps.ioctls);
	}
	__atomic_store_n(&t->skel->bss->gate, open ? 1 : 0, __ATOMIC_SEQ_CST);
	return err;
}

/*
 * Each uprobe detach waits for the kernel to sync (about 35 ms in a VM, and
 * serialised even across threads), so stop costs that much per link.
 */
void tracer_detach(struct tracer *t)
{
	while (t->nlinks)
		bpf_link__destroy(t->links[--t->nlinks]);
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
