// SPDX-License-Identifier: MIT
/* Reading a PROF_ directory's raw data back. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msprof/protocol.h"
#include "profdata.h"
#include "profdir.h"

/* Appends one element to a growing array. */
static void *push(void **arr, size_t *n, size_t *cap, size_t size)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 1024;
		void *p = realloc(*arr, ncap * size);

		if (!p)
			return NULL;
		*arr = p;
		*cap = ncap;
	}
	return (char *)*arr + (*n)++ * size;
}

/* The name blob: the API's name, then one string per argument. */
static int describe_api(struct api_desc *d, const struct msprof_name_rec *nr,
			size_t len)
{
	const char *p, *end;
	int i;

	free(d->name);
	memset(d, 0, sizeof(*d));
	/* One more byte: a NUL even if the record was cut short. */
	d->name = calloc(1, len + 1);
	if (!d->name)
		return -ENOMEM;
	memcpy(d->name, nr->names, len);
	d->layer = nr->layer;
	end = d->name + len;
	p = d->name + strlen(d->name) + 1;
	for (i = 0; i < MSPROF_PROBE_ARGS && p < end; i++) {
		d->kinds[i] = nr->arg_kinds[i];
		d->args[i] = p;
		p += strlen(p) + 1;
	}
	return 0;
}

static int visit(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct profdata *p = ctx;
	const struct msprof_name_rec *nr = body;
	const struct msprof_devtask_rec *dt = body;
	struct devtask *task;
	void *slot;

	switch (type) {
	case MSPROF_REC_NAME:
		if (len <= sizeof(*nr) || nr->id >= MSPROF_MAX_APIS)
			return 0;
		return describe_api(&p->apis_desc[nr->id], nr, len - sizeof(*nr));
	case MSPROF_REC_API:
		slot = push((void **)&p->apis, &p->napis, &p->cap_apis,
			    sizeof(*p->apis));
		if (slot)
			memcpy(slot, body, sizeof(*p->apis));
		return slot ? 0 : -ENOMEM;
	case MSPROF_REC_IOCTL:
		if (len < sizeof(struct msprof_ioctl_event))
			return 0;
		slot = push((void **)&p->ioctls, &p->nioctls, &p->cap_ioctls,
			    sizeof(*p->ioctls));
		if (!slot)
			return -ENOMEM;
		/* A record without payload reads as payload_len 0. */
		memset(slot, 0, sizeof(*p->ioctls));
		memcpy(slot, body, len < sizeof(*p->ioctls) ? len : sizeof(*p->ioctls));
		return 0;
	case MSPROF_REC_DEVTASK:
		if (len < sizeof(*dt))
			return 0;
		task = push((void **)&p->tasks, &p->ntasks, &p->cap_tasks,
			    sizeof(*p->tasks));
		if (!task)
			return -ENOMEM;
		task->rec = *dt;
		snprintf(task->name, sizeof(task->name), "%.*s",
			 (int)(len - sizeof(*dt)), dt->name);
		return 0;
	}
	return 0;	/* a newer record type: skip it */
}

/* By the task's own tid, which device records name, then by start. */
static int by_tid_start(const void *a, const void *b)
{
	const struct msprof_api_event *x = a, *y = b;

	if (x->ns_tid != y->ns_tid)
		return x->ns_tid < y->ns_tid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* The number after key in info.json (which msprof writes), 0 if absent. */
static unsigned long long json_number(const char *text, const char *key)
{
	const char *at = strstr(text, key);

	return at ? strtoull(at + strlen(key), NULL, 10) : 0;
}

static int read_info(struct profdata *p, const char *dir)
{
	char path[PATH_MAX], text[8192];
	const char *pid;
	size_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, PROFDIR_INFO);
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	n = fread(text, 1, sizeof(text) - 1, fp);
	fclose(fp);
	text[n] = '\0';
	pid = strstr(text, "\"pid\":");
	if (!pid)
		return -EPROTO;
	p->pid = atoi(pid + 6);
	p->lost_events = json_number(text, "\"lost_events\":");
	p->end_mono_ns = json_number(text, "\"end\": {\"mono_ns\":");
	if (msprof_json_get_str(text, "comm", p->comm, sizeof(p->comm)))
		snprintf(p->comm, sizeof(p->comm), "task");
	return 0;
}

static int load_devices(struct profdata *p, const char *dir)
{
	char path[PATH_MAX * 2];
	struct dirent *de;
	int err = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		if (strncmp(de->d_name, "device_", 7))
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", dir, de->d_name,
			 PROFDIR_DEVICE_FILE);
		err = recfile_read(path, NULL, visit, p);
		if (err == -ENOENT)
			err = 0;
	}
	closedir(d);
	return err;
}

int profdata_load(struct profdata *p, const char *dir)
{
	char path[PATH_MAX];
	int err;

	memset(p, 0, sizeof(*p));
	err = read_info(p, dir);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/%s", dir, PROFDIR_HOST_FILE);
	err = recfile_read(path, NULL, visit, p);
	if (err == -ENOENT)
		err = 0;
	if (!err)
		err = load_devices(p, dir);
	if (err) {
		profdata_free(p);	/* nothing half-loaded stays behind */
		return err;
	}
	if (p->napis)	/* qsort() wants an array, even of nothing */
		qsort(p->apis, p->napis, sizeof(*p->apis), by_tid_start);
	return 0;
}

void profdata_free(struct profdata *p)
{
	size_t i;

	for (i = 0; i < MSPROF_MAX_APIS; i++)
		free(p->apis_desc[i].name);
	free(p->apis);
	free(p->ioctls);
	free(p->tasks);
	memset(p, 0, sizeof(*p));
}

const struct msprof_api_event *profdata_call_at(const struct profdata *p,
						uint32_t tid, uint64_t ns)
{
	size_t lo = 0, hi = p->napis;

	/* The first call on tid that starts after ns... */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct msprof_api_event *e = &p->apis[mid];

		if (e->ns_tid < tid || (e->ns_tid == tid && e->start_ns <= ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ...then back to the latest-starting one that still holds ns. */
	while (lo-- > 0) {
		const struct msprof_api_event *e = &p->apis[lo];

		if (e->ns_tid != tid)
			break;
		if (e->end_ns >= ns)
			return e;
		if (!e->depth)
			break;	/* an outermost call that ended: none holds ns */
	}
	return NULL;
}
