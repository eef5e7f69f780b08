// SPDX-License-Identifier: MIT
/*
 * Device backend for npusim: its task observer hands over each completed
 * device task, which is kept in a bounded buffer until the window's flush.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "msprof/agent_backend.h"
#include "npusim/npusim_prof.h"
#include "devdata.h"

#define NPUSIM_BACKEND	"npusim"
#define TASK_NAME_LEN	64

struct npusim_task {
	struct npusim_task_record rec;	/* rec.name is npusim's, not kept */
	char name[TASK_NAME_LEN];
};

struct npusim_backend {
	int (*set_observer)(npusim_task_observer_fn fn, void *ctx);
	pthread_mutex_t lock;		/* the observer runs on device threads */
	struct rec_buf buf;		/* struct npusim_task */
};

/* Runs on npusim's device threads: copy and go. */
static void npusim_observe(const struct npusim_task_record *rec, void *ctx)
{
	struct npusim_backend *nb = ctx;
	size_t len = strnlen(rec->name, TASK_NAME_LEN - 1);
	struct npusim_task *t;

	pthread_mutex_lock(&nb->lock);
	t = devdata_rec_buf_slot(&nb->buf);
	if (t) {
		t->rec = *rec;
		memcpy(t->name, rec->name, len);
		t->name[len] = '\0';
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
	devdata_rec_buf_init(&nb->buf, sizeof(struct npusim_task));
	*state = nb;
	return 0;
}

static int npusim_start(void *state)
{
	struct npusim_backend *nb = state;

	/* Records of a window that never got flushed are stale now. */
	pthread_mutex_lock(&nb->lock);
	devdata_rec_buf_free(&nb->buf);
	pthread_mutex_unlock(&nb->lock);
	return nb->set_observer(npusim_observe, nb) ? -EIO : 0;
}

static int npusim_stop(void *state)
{
	struct npusim_backend *nb = state;

	return nb->set_observer(NULL, NULL) ? -EIO : 0;
}

/* One MSPROF_REC_DEVTASK per task, in completion order, per device. */
static int write_tasks(const struct rec_buf *b, const char *dir)
{
	struct dev_files df = { .dir = dir };
	size_t i;
	int err = 0;

	for (i = 0; i < b->nr && !err; i++) {
		const struct npusim_task *t = devdata_rec_buf_at(b, i);
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

		err = devdata_files_append(&df, &rec, t->name);
	}
	return devdata_files_close(&df) ?: err;
}

static int npusim_flush(void *state, const char *dir)
{
	struct npusim_backend *nb = state;
	struct rec_buf b;
	int err;

	/* Take the records away so device threads never wait on file I/O. */
	pthread_mutex_lock(&nb->lock);
	b = nb->buf;
	devdata_rec_buf_init(&nb->buf, b.size);
	pthread_mutex_unlock(&nb->lock);

	err = write_tasks(&b, dir);
	err = devdata_stats_write(dir, NPUSIM_BACKEND,
				"\"tasks\":%zu,\"lost\":%" PRIu64, b.nr,
				b.lost) ?: err;
	devdata_rec_buf_free(&b);
	return err;
}

const struct msprof_backend msprof_backend_npusim = {
	.name = NPUSIM_BACKEND,
	.open = npusim_open,
	.start = npusim_start,
	.stop = npusim_stop,
	.flush = npusim_flush,
};
