// SPDX-License-Identifier: MIT
/* The session's probes: the packs' functions it wants, and their devices. */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msprof/events.h"
#include "common/input_error.h"
#include "probes.h"
#include "proc/procfs.h"
#include "proc/procread.h"

/* A function the user names has no known signature: show raw registers. */
static const struct msprof_probe_arg raw_args[MSPROF_PROBE_ARGS] = {
	{ "arg0", MSPROF_ARG_HEX }, { "arg1", MSPROF_ARG_HEX },
	{ "arg2", MSPROF_ARG_HEX }, { "arg3", MSPROF_ARG_HEX },
	{ "arg4", MSPROF_ARG_HEX }, { "arg5", MSPROF_ARG_HEX },
};

/* The probe of that name (and --uprobe library), or NULL. */
static struct probe *in_set(const struct probe_set *ps, const char *name,
			    const char *lib)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		if (!strcmp(ps->v[i].name, name) &&
		    (!lib || (ps->v[i].lib && !strcmp(ps->v[i].lib, lib))))
			return &ps->v[i];
	return NULL;
}

static int add(struct probe_set *ps, const struct probe *p, char *err,
	       size_t len)
{
	struct probe *had = in_set(ps, p->name, p->lib);

	/* Packs share tables (npusim mimics CANN's acl): both libraries. */
	if (had) {
		had->packs |= p->packs;
		return 0;
	}
	if (ps->n == MSPROF_MAX_APIS)
		return input_error(err, len, "more than %d functions to probe", MSPROF_MAX_APIS);
	ps->v[ps->n++] = *p;
	return 0;
}

/* The list as the option parser checked it: every item "<lib>:<func>". */
static int add_uprobes(struct probe_set *ps, const char *list, char *err,
		       size_t len)
{
	char *item, *save, *colon;
	int ret = 0;

	ps->storage = strdup(list);
	if (!ps->storage)
		return -ENOMEM;
	for (item = strtok_r(ps->storage, ",", &save); item && !ret;
	     item = strtok_r(NULL, ",", &save)) {
		struct probe p = { .layer = MSPROF_LAYER_CUSTOM, .args = raw_args };

		colon = strchr(item, ':');
		*colon = '\0';
		p.lib = item;
		p.name = colon + 1;
		ret = add(ps, &p, err, len);
	}
	return ret;
}

int probe_set_build(struct probe_set *ps, unsigned int layers,
		    const char *uprobes, char *err, size_t len)
{
	const struct msprof_probe_pack *pack;
	size_t i, j;
	int ret = 0;

	memset(ps, 0, sizeof(*ps));
	/* A probe's packs are bits of an unsigned int. */
	if (msprof_nr_probe_packs > sizeof(ps->v->packs) * CHAR_BIT)
		return -EINVAL;
	ps->v = calloc(MSPROF_MAX_APIS, sizeof(*ps->v));
	if (!ps->v)
		return -ENOMEM;
	for (i = 0; !ret && i < msprof_nr_probe_packs; i++) {
		pack = &msprof_probe_packs[i];
		if (!(layers & (1u << pack->layer)))
			continue;
		for (j = 0; !ret && j < pack->nfuncs; j++) {
			struct probe p = {
				.name = pack->funcs[j].name,
				.layer = pack->layer,
				.args = pack->funcs[j].args,
				.packs = 1u << i,
			};

			ret = add(ps, &p, err, len);
		}
	}
	if (!ret && uprobes)
		ret = add_uprobes(ps, uprobes, err, len);
	if (ret)
		probe_set_free(ps);
	return ret;
}

void probe_set_free(struct probe_set *ps)
{
	free(ps->v);
	free(ps->storage);
	memset(ps, 0, sizeof(*ps));
}

int probe_in_library(const struct probe *p, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i;

	if (p->lib)
		return strstr(base ? base + 1 : path, p->lib) ||
		       !strcmp(p->lib, path);
	for (i = 0; i < msprof_nr_probe_packs; i++)
		if ((p->packs & (1u << i)) &&
		    msprof_probe_pack_is_library(&msprof_probe_packs[i], path))
			return 1;
	return 0;
}

struct lib_search {
	const struct probe *p;
	char *path;
	size_t len;
};

static int match_library(const struct procfs_map *map, void *ctx)
{
	struct lib_search *ls = ctx;

	if (!probe_in_library(ls->p, map->path))
		return 0;
	snprintf(ls->path, ls->len, "%s", map->path);
	return 1;
}

int probe_find_library(int host_pid, const struct probe *p, char *path,
		       size_t len)
{
	struct lib_search ls = { .p = p, .path = path, .len = len };
	int err = procfs_exec_maps(host_pid, match_library, &ls);

	return err < 0 ? err : err ? 0 : -ENOENT;
}

/*
 * A directory holding more entries than this is not read further: a
 * container's root may fill its own /dev.
 */
#define PROBE_MAX_DIRENTS 65536

struct node_walk {
	int host_pid;
	probe_device_fn fn;
	void *ctx;
	unsigned int n;		/* nodes handed to fn */
};

/*
 * path, as the task sees it: resolved inside its root (never a glob: the
 * task writes the environment that may name it), in msprof's reader (its
 * root may hold a file system that never answers), taken if a character
 * device.
 */
static int take_node(struct node_walk *nw, const char *path)
{
	struct stat st;
	int err;

	err = procfs_stat_in_root(nw->host_pid, path, NULL, O_PATH, &st, NULL);
	if (procread_stalled(err))
		return err;
	/* No such node: not that runtime's host. */
	if (err || !S_ISCHR(st.st_mode))
		return 0;
	if (nw->n++ == PROBE_MAX_NODES)
		return -E2BIG;
	return nw->fn(st.st_rdev, nw->ctx);
}

struct nodes_arg {
	int pid;
	char dir[PATH_MAX];	/* a literal directory, ending in '/' */
	char name[NAME_MAX + 1];	/* a name pattern in it */
};

/*
 * In the reader: the device numbers of the character devices in dir whose
 * names match, one more than PROBE_MAX_NODES at most.
 */
static int nodes_in_reader(const void *arg, int in_fd, char *out,
			   size_t cap, size_t *len, int *out_fd)
{
	const struct nodes_arg *a = arg;
	char path[PATH_MAX];
	unsigned int seen = 0;
	struct dirent *de;
	struct stat st;
	int fd, nfd;
	DIR *d;

	(void)in_fd;
	(void)out_fd;
	if (procfs_open_in_root(a->pid, a->dir, O_RDONLY | O_DIRECTORY, &fd))
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while (*len + sizeof(dev_t) <= cap && seen++ < PROBE_MAX_DIRENTS &&
	       (de = readdir(d))) {
		if (fnmatch(a->name, de->d_name, FNM_PERIOD) ||
		    snprintf(path, sizeof(path), "%s%s", a->dir, de->d_name) >=
		    (int)sizeof(path) ||
		    procfs_open_in_root(a->pid, path, O_PATH, &nfd))
			continue;
		if (!fstat(nfd, &st) && S_ISCHR(st.st_mode)) {
			memcpy(out + *len, &st.st_rdev, sizeof(dev_t));
			*len += sizeof(dev_t);
		}
		close(nfd);
	}
	closedir(d);
	return 0;
}

/* A pack's pattern: a literal directory, then a name pattern in it. */
static int take_nodes(struct node_walk *nw, const char *pattern)
{
	const char *name = strrchr(pattern, '/') + 1;
	dev_t devs[PROBE_MAX_NODES + 1];
	struct nodes_arg a = { .pid = nw->host_pid };
	struct procread_call c = {
		.fn = nodes_in_reader, .arg = &a, .arg_len = sizeof(a),
		.in_fd = -1, .out = devs, .cap = sizeof(devs),
	};
	size_t i;
	int err;

	if (!strpbrk(name, "*?["))
		return take_node(nw, pattern);
	snprintf(a.dir, sizeof(a.dir), "%.*s", (int)(name - pattern), pattern);
	snprintf(a.name, sizeof(a.name), "%s", name);
	err = procread_run(&c);
	for (i = 0; !err && i < c.len / sizeof(dev_t); i++)
		err = nw->n++ == PROBE_MAX_NODES ? -E2BIG : nw->fn(devs[i], nw->ctx);
	return err;
}

struct mapped_libs {
	const struct msprof_probe_pack *pack;
	bool found;
};

static int maps_pack_library(const struct procfs_map *map, void *ctx)
{
	struct mapped_libs *m = ctx;

	if (msprof_probe_pack_is_library(m->pack, map->path))
		m->found = true;
	return m->found;
}

int probe_devices(int host_pid, probe_device_fn fn, void *ctx)
{
	struct node_walk nw = { .host_pid = host_pid, .fn = fn, .ctx = ctx };
	const struct msprof_probe_pack *pack;
	char node[PATH_MAX];
	size_t i, j;
	int err = 0;

	for (i = 0; !err && i < msprof_nr_probe_packs; i++) {
		struct mapped_libs m = { .pack = &msprof_probe_packs[i] };

		pack = m.pack;
		/* Only a runtime the task maps speaks to its driver. */
		err = procfs_exec_maps(host_pid, maps_pack_library, &m);
		if (procread_stalled(err))
			break;
		err = 0;
		if (!m.found)
			continue;
		*node = '\0';
		if (pack->device_env)
			err = procfs_getenv(host_pid, pack->device_env, node,
					    sizeof(node));
		if (procread_stalled(err))
			break;
		if (err) {
			*node = '\0';
			err = 0;
		}
		if (*node) {
			err = take_node(&nw, node);
			continue;
		}
		for (j = 0; !err && pack->devices[j]; j++)
			err = take_nodes(&nw, pack->devices[j]);
	}
	return err;
}
