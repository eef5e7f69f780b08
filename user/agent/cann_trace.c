// SPDX-License-Identifier: MIT
/*
 * What a device's trace becomes in a runtime's PROF_ directory:
 * device_<N>/data/stars_soc.data.<N>.slice_<k> (a start and an end record
 * per task), ts_track.data.<N>.slice_<k> (a flip record where a stream's
 * task ids wrapped) and device_<N>/'s metadata.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "msprof/cann_raw.h"
#include "npusim/npusim_prof.h"
#include "cann_slice.h"
#include "cann_trace.h"
#include "common/fsutil.h"

#define OUT_BATCH	256	/* records built before each write */

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

int cann_trace_write(const char *dir, const struct cann_meta *m,
		     const struct rec_buf *b, uint64_t *flips)
{
	unsigned int device = m->device;
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
		err = cann_meta_write(sub, m);
	if (sub >= 0)
		close(sub);
	close(data);
	return err;
}

