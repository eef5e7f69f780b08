// SPDX-License-Identifier: MIT
/*
 * One window of CUPTI activity records, reduced as they arrive to what a
 * device task record needs, and joined to the API calls that launched them
 * when written.
 */
#ifdef MSPROF_HAVE_CUPTI
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>
#include <cupti_activity_deprecated.h>	/* needs cupti.h first */

#include "cupti_window.h"

/*
 * CUPTI fills in the newest record versions it knows, older ones than these
 * headers' when the libcupti found at run time is older (CUDA 12): read only
 * fields that have not moved since the oldest versions still declared.
 */
#define SAME_PLACE(old, new, f) \
	_Static_assert(offsetof(old, f) == offsetof(new, f), #old "." #f)
#define KERNEL_FIELD(f)	SAME_PLACE(CUpti_ActivityKernel4, CUpti_ActivityKernel10, f)
#define MEMCPY_FIELD(f)	SAME_PLACE(CUpti_ActivityMemcpy, CUpti_ActivityMemcpy6, f)
#define MEMSET_FIELD(f)	SAME_PLACE(CUpti_ActivityMemset, CUpti_ActivityMemset4, f)
KERNEL_FIELD(start);
KERNEL_FIELD(end);
KERNEL_FIELD(deviceId);
KERNEL_FIELD(streamId);
KERNEL_FIELD(gridX);
KERNEL_FIELD(gridY);
KERNEL_FIELD(gridZ);
KERNEL_FIELD(correlationId);
KERNEL_FIELD(name);
MEMCPY_FIELD(copyKind);
MEMCPY_FIELD(start);
MEMCPY_FIELD(end);
MEMCPY_FIELD(deviceId);
MEMCPY_FIELD(streamId);
MEMCPY_FIELD(correlationId);
MEMSET_FIELD(start);
MEMSET_FIELD(end);
MEMSET_FIELD(deviceId);
MEMSET_FIELD(streamId);
MEMSET_FIELD(correlationId);

/* A kernel, memcpy or memset as it ran on a device. */
struct cupti_task {
	uint64_t start, end;		/* CUPTI's clock */
	const char *name;		/* static, or in the window's name set */
	uint32_t device, stream, corr, block_dim;
};

/* A runtime or driver API call: the launch of its correlation id's tasks. */
struct cupti_api {
	uint64_t start;			/* CUPTI's clock */
	uint32_t corr, tid;
};

static const char *const memcpy_names[] = {
	[CUPTI_ACTIVITY_MEMCPY_KIND_HTOD] = "MEMCPY_HtoD",
	[CUPTI_ACTIVITY_MEMCPY_KIND_DTOH] = "MEMCPY_DtoH",
	[CUPTI_ACTIVITY_MEMCPY_KIND_HTOA] = "MEMCPY_HtoA",
	[CUPTI_ACTIVITY_MEMCPY_KIND_ATOH] = "MEMCPY_AtoH",
	[CUPTI_ACTIVITY_MEMCPY_KIND_ATOA] = "MEMCPY_AtoA",
	[CUPTI_ACTIVITY_MEMCPY_KIND_ATOD] = "MEMCPY_AtoD",
	[CUPTI_ACTIVITY_MEMCPY_KIND_DTOA] = "MEMCPY_DtoA",
	[CUPTI_ACTIVITY_MEMCPY_KIND_DTOD] = "MEMCPY_DtoD",
	[CUPTI_ACTIVITY_MEMCPY_KIND_HTOH] = "MEMCPY_HtoH",
	[CUPTI_ACTIVITY_MEMCPY_KIND_PTOP] = "MEMCPY_PtoP",
};

#define NR_MEMCPY_NAMES (sizeof(memcpy_names) / sizeof(memcpy_names[0]))

/* FNV-1a */
static size_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ull;
	}
	return h;
}

static int name_set_grow(struct name_set *s)
{
	size_t cap = s->cap ? 2 * s->cap : 64, i, j;
	char **v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < s->cap; i++) {
		if (!s->v[i])
			continue;
		for (j = name_hash(s->v[i]) & (cap - 1); v[j]; j = (j + 1) & (cap - 1))
			;
		v[j] = s->v[i];
	}
	free(s->v);
	s->v = v;
	s->cap = cap;
	return 0;
}

/*
 * The window's copy of name, or NULL without memory.  CUPTI's own string
 * is not kept: nothing says it outlives the module that holds the kernel.
 */
static const char *name_set_get(struct name_set *s, const char *name)
{
	size_t i;

	/* At most half full, so that probing always meets a free slot. */
	if (2 * (s->nr + 1) > s->cap && name_set_grow(s))
		return NULL;
	for (i = name_hash(name) & (s->cap - 1); s->v[i]; i = (i + 1) & (s->cap - 1))
		if (!strcmp(s->v[i], name))
			return s->v[i];
	s->v[i] = strdup(name);
	if (s->v[i])
		s->nr++;
	return s->v[i];
}

static void name_set_free(struct name_set *s)
{
	size_t i;

	for (i = 0; i < s->cap; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void cupti_window_init(struct cupti_window *w)
{
	memset(w, 0, sizeof(*w));
	devdata_rec_buf_init(&w->tasks, sizeof(struct cupti_task));
	devdata_rec_buf_init(&w->apis, sizeof(struct cupti_api));
}

/*
 * A task that was timed, named, and found room, or NULL.  CUPTI leaves both
 * times 0 when it could not take them, and a forced flush delivers a task
 * still running without its end.
 */
/* Keeps a device task read from any kind of record, if it is whole. */
static void task_keep(struct cupti_window *w, const struct cupti_task *task)
{
	struct cupti_task *t;

	if (!task->start || task->end < task->start || !task->name) {
		w->lost++;
		return;
	}
	t = devdata_rec_buf_slot(&w->tasks);
	if (t)
		*t = *task;
}

static void keep_kernel(struct cupti_window *w, const CUpti_ActivityKernel10 *k)
{
	uint64_t blocks = (uint64_t)(uint32_t)k->gridX * (uint32_t)k->gridY *
			  (uint32_t)k->gridZ;

	task_keep(w, &(struct cupti_task){
		.start = k->start, .end = k->end,
		.name = name_set_get(&w->names, k->name ?: "kernel"),
		.device = k->deviceId, .stream = k->streamId,
		.corr = k->correlationId,
		.block_dim = blocks > UINT32_MAX ? UINT32_MAX : (uint32_t)blocks,
	});
}

static void keep_memcpy(struct cupti_window *w, const CUpti_ActivityMemcpy6 *m)
{
	task_keep(w, &(struct cupti_task){
		.start = m->start, .end = m->end,
		.name = m->copyKind < NR_MEMCPY_NAMES && memcpy_names[m->copyKind] ?
			memcpy_names[m->copyKind] : "MEMCPY",
		.device = m->deviceId, .stream = m->streamId,
		.corr = m->correlationId,
	});
}

static void keep_memset(struct cupti_window *w, const CUpti_ActivityMemset4 *m)
{
	task_keep(w, &(struct cupti_task){
		.start = m->start, .end = m->end, .name = "MEMSET",
		.device = m->deviceId, .stream = m->streamId,
		.corr = m->correlationId,
	});
}

static void keep_api(struct cupti_window *w, const CUpti_ActivityAPI *a)
{
	struct cupti_api *c;

	if (!a->start)
		return;		/* untimed: no submit time to give */
	c = devdata_rec_buf_slot(&w->apis);
	if (!c)
		return;
	c->start = a->start;
	c->corr = a->correlationId;
	c->tid = a->threadId;
}

void cupti_window_keep(struct cupti_window *w, const CUpti_Activity *act)
{
	switch (act->kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		keep_kernel(w, (const CUpti_ActivityKernel10 *)act);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		keep_memcpy(w, (const CUpti_ActivityMemcpy6 *)act);
		break;
	case CUPTI_ACTIVITY_KIND_MEMSET:
		keep_memset(w, (const CUpti_ActivityMemset4 *)act);
		break;
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER:
		keep_api(w, (const CUpti_ActivityAPI *)act);
		break;
	default:
		break;
	}
}

static int api_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct cupti_api *)a)->corr;
	uint32_t y = ((const struct cupti_api *)b)->corr;

	return (x > y) - (x < y);
}

/* The window's API calls in one array sorted by correlation id, or NULL. */
static struct cupti_api *api_index(const struct rec_buf *apis)
{
	struct cupti_api *v = malloc((apis->nr ?: 1) * sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < apis->nr; i++)
		v[i] = *(const struct cupti_api *)devdata_rec_buf_at(apis, i);
	qsort(v, apis->nr, sizeof(*v), api_cmp);
	return v;
}

int cupti_window_write(const struct cupti_window *w, uint64_t offset,
		       const char *dir, size_t *unlinked)
{
	struct cupti_api *idx = api_index(&w->apis);
	struct dev_files df = { .dir = dir };
	size_t i;
	int err = 0;

	*unlinked = 0;
	if (!idx)
		return -ENOMEM;
	/* Unsigned arithmetic: offset may stand for a negative difference. */
	for (i = 0; i < w->tasks.nr && !err; i++) {
		const struct cupti_task *t = devdata_rec_buf_at(&w->tasks, i);
		const struct cupti_api key = { .corr = t->corr }, *api;
		struct msprof_devtask_rec rec = {
			.device = t->device,
			.stream = t->stream,
			.task_id = t->corr,
			.block_dim = t->block_dim,
			.start_ns = t->start - offset,
			.end_ns = t->end - offset,
		};

		api = bsearch(&key, idx, w->apis.nr, sizeof(*idx), api_cmp);
		if (api) {
			rec.host_tid = api->tid;
			rec.submit_ns = api->start - offset;
		} else {
			(*unlinked)++;
		}
		err = devdata_files_append(&df, &rec, t->name);
	}
	free(idx);
	return devdata_files_close(&df) ?: err;
}

void cupti_window_free(struct cupti_window *w)
{
	devdata_rec_buf_free(&w->tasks);
	devdata_rec_buf_free(&w->apis);
	name_set_free(&w->names);
	w->lost = 0;
	w->dropped = 0;
}
#endif
