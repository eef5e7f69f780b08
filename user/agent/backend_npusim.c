// SPDX-License-Identifier: MIT
/*
 * Device backend for npusim: its task observer hands over each completed
 * device task, which is kept in a bounded buffer until the window's flush.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "msprof/agent_backend.h"
#include "msprof/recfile.h"
#include "npusim/npusim_prof.h"
#include "agent_int.h"
#include "fsutil.h"

#define NPUSIM_BACKEND	"npusim"
#define TASK_NAME_LEN	64
/* Chunks are allocated as tasks arrive, so a quiet window costs little. */
#define CHUNK_TASKS	(1u << 12)
#define MAX_TASKS	(1u << 20)
#define NR_CHUNKS	(MAX_TASKS / CHUNK_TASKS)

struct npusim_task {
	struct npusim_task_record rec;	/* rec.name is npusim's, not kept */
	char name[TASK_NAME_LEN];
};

struct task_buf {
	struct npusim_task *chunk[NR_CHUNKS];
	size_t nr;
	uint64_t lost;			/* tasks that found the buffer full */
};

struct npusim_backend {
	int (*set_observer)(npusim_task_observer_fn fn, void *ctx);
	pthread_mutex_t lock;		/* the observer runs on device threads */
	struct task_buf buf;
};

static void buf_free(struct task_buf *b)
{
	size_t i;

	for (i = 0; i < NR_CHUNKS; i++)
		free(b->chunk[i]);
	memset(b, 0, sizeof(*b));
}

static struct npusim_task *buf_slot(struct task_buf *b)
{
	struct npusim_task **chunk;

	if (b->nr == MAX_TASKS)
		return NULL;
	chunk = &b->chunk[b->nr / CHUNK_TASKS];
	if (!*chunk)
		*chunk = malloc(CHUNK_TASKS * sizeof(**chunk));
	if (!*chunk)
		return NULL;
	return &(*chunk)[b->nr++ % CHUNK_TASKS];
}

static const struct npusim_task *buf_task(const struct task_buf *b, size_t i)
{
	return &b->chunk[i / CHUNK_TASKS][i % CHUNK_TASKS];
}

/* Runs on npusim's device threads: copy and go. */
static void npusim_observe(const struct npusim_task_record *rec, void *ctx)
{
	struct npusim_backend *nb = ctx;
	size_t len = strnlen(rec->name, TASK_NAME_LEN - 1);
	struct npusim_task *t;

	pthread_mutex_lock(&nb->lock);
	t = buf_slot(&nb->buf);
	if (t) {
		t->rec = *rec;
		memcpy(t->name, rec->name, len);
		t->name[len] = '\0';
	} else {
		nb->buf.lost++;
	}
	pthread_mutex_unlock(&nb->lock);
}

static int npusim_open(void **state)
{
	void *sym = dlsym(RTLD_DEFAULT, NPUSIM_SET_TASK_OBSERVER_SYM);
	struct npusim_backend *nb;

	if (!sym)
		return -ENODEV;
	nb = calloc(1, sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	nb->set_observer = (int (*)(npusim_task_observer_fn, void *))sym;
	pthread_mutex_init(&nb->lock, NULL);
	*state = nb;
	return 0;
}

static int npusim_start(void *state)
{
	struct npusim_backend *nb = state;

	/* Records of a window that never got flushed are stale now. */
	pthread_mutex_lock(&nb->lock);
	buf_free(&nb->buf);
	pthread_mutex_unlock(&nb->lock);
	return nb->set_observer(npusim_observe, nb) ? -EIO : 0;
}

static int npusim_stop(void *state)
{
	struct npusim_backend *nb = state;

	return nb->set_observer(NULL, NULL) ? -EIO : 0;
}

static int path_fmt(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

/* The task_time.data of each device seen in this window. */
struct dev_files {
	struct dev_file {
		uint32_t device;
		struct recfile *f;
	} *v;
	size_t nr;
};

static int dev_file_open(struct dev_files *df, const char *dir,
			 uint32_t device, struct recfile **out)
{
	struct recfile *f = NULL;
	char path[PATH_MAX];
	struct dev_file *v;
	size_t i;
	int err;

	for (i = 0; i < df->nr; i++) {
		if (df->v[i].device == device) {
			*out = df->v[i].f;
			return 0;
		}
	}
	v = realloc(df->v, (df->nr + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	df->v = v;
	err = path_fmt(path, "%s/device_%" PRIu32 "/data", dir, device) ?:
	      mkdir_p(path, 0755) ?:
	      path_fmt(path, "%s/device_%" PRIu32 "/data/task_time.data",
		       dir, device) ?:
	      recfile_create(&f, path);
	if (err)
		return err;
	v[df->nr++] = (struct dev_file){ .device = device, .f = f };
	*out = f;
	return 0;
}

static int dev_files_close(struct dev_files *df)
{
	size_t i;
	int err = 0, ret;

	for (i = 0; i < df->nr; i++) {
		ret = recfile_close(df->v[i].f);
		err = err ?: ret;
	}
	free(df->v);
	return err;
}

/* One MSPROF_REC_DEVTASK per task, in completion order, per device. */
static int write_tasks(const struct task_buf *b, const char *dir)
{
	struct dev_files df = { 0 };
	struct recfile *f;
	size_t i;
	int err = 0;

	for (i = 0; i < b->nr && !err; i++) {
		const struct npusim_task *t = buf_task(b, i);
		struct msprof_devtask_rec rec = {
			.device = t->rec.device,
			.stream = t->rec.stream,
			.task_id = t->rec.task_id,
			.block_dim = t->rec.block_dim,
			.host_tid = t->rec.host_tid,
			.submit_ns = t->rec.submit_ns,
			.start_ns = t->rec.start_ns,
			.end_ns = t->rec.end_ns,
		};

		err = dev_file_open(&df, dir, t->rec.device, &f) ?:
		      recfile_append(f, MSPROF_REC_DEVTASK, &rec, sizeof(rec),
				     t->name, strlen(t->name) + 1);
	}
	return dev_files_close(&df) ?: err;
}

static int write_stats(const char *dir, size_t tasks, uint64_t lost)
{
	char path[PATH_MAX];
	FILE *fp;
	int err;

	err = path_fmt(path, "%s/agent_stats.json", dir);
	if (err)
		return err;
	fp = fopen(path, "we");
	if (!fp)
		return -errno;
	fprintf(fp, "{\"backend\":\"%s\",\"tasks\":%zu,\"lost\":%" PRIu64 "}\n",
		NPUSIM_BACKEND, tasks, lost);
	err = ferror(fp) ? -EIO : 0;
	if (fclose(fp) && !err)
		err = -errno;
	return err;
}

static int npusim_flush(void *state, const char *dir)
{
	struct npusim_backend *nb = state;
	struct task_buf b;
	int err;

	/* Take the records away so device threads never wait on file I/O. */
	pthread_mutex_lock(&nb->lock);
	b = nb->buf;
	memset(&nb->buf, 0, sizeof(nb->buf));
	pthread_mutex_unlock(&nb->lock);

	err = write_tasks(&b, dir);
	err = write_stats(dir, b.nr, b.lost) ?: err;
	buf_free(&b);
	return err;
}

static void npusim_close(void *state)
{
	struct npusim_backend *nb = state;

	buf_free(&nb->buf);
	pthread_mutex_destroy(&nb->lock);
	free(nb);
}

const struct msprof_backend msprof_backend_npusim = {
	.name = NPUSIM_BACKEND,
	.open = npusim_open,
	.start = npusim_start,
	.stop = npusim_stop,
	.flush = npusim_flush,
	.close = npusim_close,
};
