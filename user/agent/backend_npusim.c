// SPDX-License-Identifier: MIT
/*
 * Device backend for npusim, the runtime's profiling as a 910B runtime
 * has it: npusim's task observer hands over each completed device task
 * (kept in a bounded buffer until the window's flush), and the flush
 * writes what a device's trace becomes in a runtime's PROF_ directory:
 * device_<N>/data/stars_soc.data.<N>.slice_<k> (a start and an end record
 * per task), ts_track.data.<N>.slice_<k> (a flip record where a stream's
 * task ids wrapped) and device_<N>/'s metadata, clocks sampled at START.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msprof/agent_backend.h"
#include "msprof/cann_raw.h"
#include "npusim/npusim_prof.h"
#include "cann_meta.h"
#include "cann_report.h"
#include "cann_slice.h"
#include "common/fsutil.h"
#include "devdata.h"

#define NPUSIM_BACKEND	"npusim"
#define NPUSIM_DEVICES	64	/* sampled at START until npusim says none */
#define OUT_BATCH	256	/* records built before each write */

typedef int (*read_clock_fn)(uint32_t device, uint64_t *raw_ns, uint64_t *cnt);

struct dev_clock {
	uint64_t raw_ns;
	uint64_t cnt;
};

struct npusim_backend {
	int (*set_observer)(npusim_task_observer_fn fn, void *ctx);
	read_clock_fn read_clock;
	pthread_mutex_t lock;		/* the observer runs on device threads */
	struct rec_buf buf;		/* struct npusim_task_record */
	struct clock_pair start;	/* the window's START */
	struct dev_clock clock[NPUSIM_DEVICES];
	unsigned int ndevices;		/* those npusim read at START */
};

/* Runs on npusim's device threads: copy and go. */
static void npusim_observe(const struct npusim_task_record *rec, void *ctx)
{
	struct npusim_backend *nb = ctx;
	struct npusim_task_record *t;

	pthread_mutex_lock(&nb->lock);
	t = devdata_rec_buf_slot(&nb->buf);
	if (t)
		*t = *rec;
	pthread_mutex_unlock(&nb->lock);
}

static int npusim_open(void **state)
{
	void *sym = dlsym(RTLD_DEFAULT, NPUSIM_SET_TASK_OBSERVER_SYM);
	void *clk = dlsym(RTLD_DEFAULT, NPUSIM_READ_DEVICE_CLOCK_SYM);
	struct npusim_backend *nb;

	if (!sym || !clk)
		return -ENODEV;
	nb = calloc(1, sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	nb->set_observer = (int (*)(npusim_task_observer_fn, void *))sym;
	nb->read_clock = (read_clock_fn)clk;
	pthread_mutex_init(&nb->lock, NULL);
	devdata_rec_buf_init(&nb->buf, sizeof(struct npusim_task_record));
	*state = nb;
	return 0;
}

/* Each device's counter beside the host's clock, as a runtime's START does. */
static void sample_clocks(struct npusim_backend *nb)
{
	unsigned int i;

	clock_pair_now(&nb->start);
	for (i = 0; i < NPUSIM_DEVICES; i++)
		if (nb->read_clock(i, &nb->clock[i].raw_ns, &nb->clock[i].cnt))
			break;
	nb->ndevices = i;
}

static int npusim_start(void *state)
{
	struct npusim_backend *nb = state;

	/* Records of a window that never got flushed are stale now. */
	pthread_mutex_lock(&nb->lock);
	devdata_rec_buf_free(&nb->buf);
	pthread_mutex_unlock(&nb->lock);
	sample_clocks(nb);
	return nb->set_observer(npusim_observe, nb) ? -EIO : 0;
}

static int npusim_stop(void *state)
{
	struct npusim_backend *nb = state;

	return nb->set_observer(NULL, NULL) ? -EIO : 0;
}

static uint16_t sqe_of(uint32_t kind)
{
	switch (kind) {
	case NPUSIM_TASK_AI_CORE:
		return CANN_SQE_AI_CORE;
	case NPUSIM_TASK_AI_VECTOR:
		return CANN_SQE_AIV;
	default:
		return CANN_SQE_SDMA;	/* copies, HCCL's among them */
	}
}

/* A device's trace writers: records batched, whole ones per slice. */
struct dev_out {
	struct cann_slice stars, ts;
	struct cann_stars_log sb[OUT_BATCH];
	struct cann_ts_flip tb[OUT_BATCH];
	size_t ns, nt;
	unsigned int counter;	/* stars' 4-bit rolling counter */
	uint64_t flips;
};

static int out_stars(struct dev_out *o, const struct npusim_task_record *t,
		     bool end)
{
	o->sb[o->ns++] = (struct cann_stars_log){
		.head = (end ? CANN_STARS_END : CANN_STARS_START) |
			(o->counter++ & 0xf) << 6 | sqe_of(t->kind) << 10,
		.magic = CANN_STARS_MAGIC,
		.stream = (uint16_t)t->stream,
		.task_id = t->task_id,
		.syscnt = end ? t->end_cnt : t->start_cnt,
	};
	if (o->ns < OUT_BATCH)
		return 0;
	o->ns = 0;
	return cann_slice_put(&o->stars, o->sb, sizeof(o->sb[0]), OUT_BATCH);
}

static int out_flip(struct dev_out *o, const struct npusim_task_record *t)
{
	o->flips++;
	o->tb[o->nt++] = (struct cann_ts_flip){
		.tag = CANN_TS_TAG_FLIP,
		.syscnt = t->flip_cnt,
		.stream = (uint16_t)t->stream,
		.flip_num = t->flip,
		.task_id = t->task_id,
	};
	if (o->nt < OUT_BATCH)
		return 0;
	o->nt = 0;
	return cann_slice_put(&o->ts, o->tb, sizeof(o->tb[0]), OUT_BATCH);
}

/* Device's tasks of b, in completion order, into its open data dir. */
static int write_trace(int data, unsigned int device, const struct rec_buf *b,
		       uint64_t *flips)
{
	struct dev_out *o = calloc(1, sizeof(*o));
	uint64_t limit = cann_slice_limit();
	char base[64];
	size_t i;
	int err;

	if (!o)
		return -ENOMEM;
	snprintf(base, sizeof(base), "stars_soc.data.%u", device);
	err = cann_slice_init(&o->stars, data, base, limit);
	snprintf(base, sizeof(base), "ts_track.data.%u", device);
	err = err ?: cann_slice_init(&o->ts, data, base, limit);
	for (i = 0; i < b->nr && !err; i++) {
		const struct npusim_task_record *t = devdata_rec_buf_at(b, i);

		if (t->device != device)
			continue;
		if (t->flip_cnt)
			err = out_flip(o, t);
		err = err ?: out_stars(o, t, false) ?: out_stars(o, t, true);
	}
	if (!err && o->ns)
		err = cann_slice_put(&o->stars, o->sb, sizeof(o->sb[0]), o->ns);
	if (!err && o->nt)
		err = cann_slice_put(&o->ts, o->tb, sizeof(o->tb[0]), o->nt);
	err = cann_slice_close(&o->stars) ?: cann_slice_close(&o->ts) ?: err;
	*flips += o->flips;
	free(o);
	return err;
}

/* dir/device_<N>/, its trace in data/ and its metadata. */
static int write_device(const struct npusim_backend *nb, const char *dir,
			unsigned int device, const struct rec_buf *b,
			const struct clock_pair *end, uint64_t *flips)
{
	struct cann_meta m = {
		.device = device, .hwts_mhz = NPUSIM_HWTS_MHZ,
		.start = nb->start, .end = *end,
		.dev_raw_ns = nb->clock[device].raw_ns,
		.dev_cnt = nb->clock[device].cnt,
	};
	char path[PATH_MAX];
	int sub, data, err;

	if (snprintf(path, sizeof(path), "%s/device_%u/data", dir, device) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	err = fsutil_mkdir_p(path, 0755);
	if (err)
		return err;
	data = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (data < 0)
		return -errno;
	sub = openat(data, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = sub < 0 ? -errno : write_trace(data, device, b, flips);
	if (!err)
		err = cann_meta_write(sub, &m);
	if (sub >= 0)
		close(sub);
	close(data);
	return err;
}

static int write_devices(const struct npusim_backend *nb, const char *dir,
			 const struct rec_buf *b, uint64_t *flips,
			 uint64_t *unknown)
{
	uint64_t seen = 0;
	struct clock_pair end;
	unsigned int d;
	size_t i;
	int err = 0, ret;

	clock_pair_now(&end);
	for (i = 0; i < b->nr; i++) {
		const struct npusim_task_record *t = devdata_rec_buf_at(b, i);

		/* A device START did not read has no clock pair: no file. */
		if (t->device < nb->ndevices)
			seen |= 1ull << t->device;
		else
			++*unknown;
	}
	for (d = 0; d < nb->ndevices; d++) {
		if (!(seen & (1ull << d)))
			continue;
		ret = write_device(nb, dir, d, b, &end, flips);
		err = err ?: ret;
	}
	return err;
}

static int npusim_flush(void *state, const char *dir)
{
	struct npusim_backend *nb = state;
	struct cann_report_stats host;
	uint64_t flips = 0, unknown = 0;
	struct rec_buf b;
	int err;

	/* Take the records away so device threads never wait on file I/O. */
	pthread_mutex_lock(&nb->lock);
	b = nb->buf;
	devdata_rec_buf_init(&nb->buf, b.size);
	pthread_mutex_unlock(&nb->lock);

	/* The runtime's host records are npusim's too: counted here. */
	err = cann_report_flush(dir, &host);
	err = write_devices(nb, dir, &b, &flips, &unknown) ?: err;
	err = devdata_stats_write(dir, NPUSIM_BACKEND,
				"\"tasks\":%zu,\"lost\":%" PRIu64 ",\"flips\":%"
				PRIu64 ",\"unknown_device\":%" PRIu64
				",\"host_records\":%" PRIu64 ",\"host_lost\":%"
				PRIu64 ",\"host_refused\":%" PRIu64, b.nr,
				b.lost, flips, unknown, host.records, host.lost,
				host.refused) ?: err;
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
