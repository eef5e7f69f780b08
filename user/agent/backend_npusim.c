// SPDX-License-Identifier: MIT
/*
 * Device backend for npusim, the runtime's profiling as a 910B runtime
 * has it: npusim's task observer hands over each completed device task
 * (kept in a bounded buffer until the window's flush), and the flush
 * writes each device's trace (cann_trace.c) with its clocks sampled at
 * START, after the runtime's host records.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>

#include "msprof/agent_backend.h"
#include "npusim/npusim_prof.h"
#include "cann_meta.h"
#include "cann_report.h"
#include "cann_trace.h"
#include "devdata.h"

#define NPUSIM_BACKEND	"npusim"
#define NPUSIM_DEVICES	64	/* sampled at START until npusim says none */

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

static int write_devices(const struct npusim_backend *nb, const char *dir,
			 const struct rec_buf *b, uint64_t *flips,
			 uint64_t *unknown)
{
	uint64_t seen = 0;
	struct clock_pair end;
	struct cann_meta m;
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
		m = (struct cann_meta){
			.device = d, .hwts_mhz = NPUSIM_HWTS_MHZ,
			.start = nb->start, .end = end,
			.dev_raw_ns = nb->clock[d].raw_ns,
			.dev_cnt = nb->clock[d].cnt,
		};
		ret = cann_trace_write(dir, &m, b, flips);
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
