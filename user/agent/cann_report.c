// SPDX-License-Identifier: MIT
/*
 * The runtime's reports of one window, kept on the reporting thread in a
 * bounded buffer per file (what does not fit is counted, the task never
 * waits for room), written out at the window's end as a runtime's
 * profiling writes them: host/data/{aging,unaging}.<kind>.<tag>.slice_<k>.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cann_dict.h"
#include "cann_report.h"
#include "cann_slice.h"
#include "common/clock.h"
#include "common/fsutil.h"
#include "devdata.h"
#include "msprof/cann_report.h"

#define REPORT_STREAMS	32		/* files of one window at most */
#define REPORT_BYTES	(64u << 20)	/* one file's buffer at most */
#define TAG_CHARS	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

enum rec_kind { KIND_API, KIND_COMPACT, KIND_ADDITIONAL };

static const struct {
	const char *name;
	size_t size;
} kinds[] = {
	[KIND_API] = { "api_event", sizeof(struct cann_api) },
	[KIND_COMPACT] = { "compact", CANN_COMPACT_SIZE },
	[KIND_ADDITIONAL] = { "additional", CANN_ADDITIONAL_SIZE },
};

/* The records of one file: api_event's of every type, the others' of one. */
struct stream {
	enum rec_kind kind;
	bool aging;
	uint16_t level;
	uint32_t type;
	struct rec_buf buf;
};

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint32_t report_on;
static struct stream streams[REPORT_STREAMS];
static size_t nstreams;
static uint64_t report_lost;	/* with no stream left for them */
static uint64_t report_refused;

static bool level_known(uint16_t level)
{
	switch (level) {
	case CANN_LEVEL_PYTORCH_TX: case CANN_LEVEL_PTA:
	case CANN_LEVEL_MSPROFTX: case CANN_LEVEL_ACL: case CANN_LEVEL_MODEL:
	case CANN_LEVEL_NODE: case CANN_LEVEL_AICPU: case CANN_LEVEL_HCCL:
	case CANN_LEVEL_RUNTIME:
		return true;
	default:
		return false;
	}
}

/* Which switch a record belongs to: the params a runtime obeys. */
static bool wanted(uint32_t on, enum rec_kind kind, uint16_t level)
{
	switch (level) {
	case CANN_LEVEL_ACL:
		return on & MSPROF_REPORT_ACL;
	case CANN_LEVEL_HCCL:
		return on & MSPROF_REPORT_HCCL;
	case CANN_LEVEL_RUNTIME:
		return on & (kind == KIND_API ? MSPROF_REPORT_RUNTIME :
			     MSPROF_REPORT_TASK);
	default:
		return on & MSPROF_REPORT_TASK;
	}
}

/* Under report_lock: the file's stream, made on first use; NULL: none left. */
static struct stream *stream_of(enum rec_kind kind, bool aging,
				uint16_t level, uint32_t type)
{
	struct stream *s;
	size_t i;

	if (kind == KIND_API)
		level = 0, type = 0;
	for (i = 0; i < nstreams; i++) {
		s = &streams[i];
		if (s->kind == kind && s->aging == aging && s->level == level &&
		    s->type == type)
			return s;
	}
	if (nstreams == REPORT_STREAMS)
		return NULL;
	s = &streams[nstreams++];
	*s = (struct stream){ .kind = kind, .aging = aging, .level = level,
			      .type = type };
	devdata_rec_buf_init_max(&s->buf, kinds[kind].size,
				 REPORT_BYTES / kinds[kind].size);
	return s;
}

static int report(enum rec_kind kind, uint32_t aging, const void *rec,
		  uint32_t len)
{
	uint32_t on = atomic_load_explicit(&report_on, memory_order_relaxed);
	struct { uint16_t magic, level; uint32_t type; } head;
	struct stream *s;
	void *slot = NULL;

	if (!on)
		return 0;
	if (!rec || len != kinds[kind].size)
		return -EINVAL;
	memcpy(&head, rec, sizeof(head));
	/* One bad record costs Huawei's analysis the whole file: keep it out. */
	if (head.magic != CANN_MAGIC || !level_known(head.level)) {
		pthread_mutex_lock(&report_lock);
		report_refused++;
		pthread_mutex_unlock(&report_lock);
		return -EINVAL;
	}
	if (!wanted(on, kind, head.level))
		return 0;
	pthread_mutex_lock(&report_lock);
	s = stream_of(kind, aging != MSPROF_REPORT_UNAGING, head.level,
		      head.type);
	if (s)
		slot = devdata_rec_buf_slot(&s->buf);
	else
		report_lost++;
	if (slot)
		memcpy(slot, rec, len);
	pthread_mutex_unlock(&report_lock);
	return slot ? 0 : -ENOSPC;
}

uint32_t msprof_report_switches(void)
{
	return atomic_load_explicit(&report_on, memory_order_relaxed);
}

int msprof_report_api(uint32_t aging, const struct cann_api *api)
{
	return report(KIND_API, aging, api, sizeof(*api));
}

int msprof_report_compact(uint32_t aging, const void *rec, uint32_t len)
{
	return report(KIND_COMPACT, aging, rec, len);
}

int msprof_report_additional(uint32_t aging, const void *rec, uint32_t len)
{
	return report(KIND_ADDITIONAL, aging, rec, len);
}

int msprof_reg_type_info(uint16_t level, uint32_t type, const char *name)
{
	return name ? cann_dict_add_type(level, type, name) : -EINVAL;
}

uint64_t msprof_get_hash_id(const char *s, size_t len)
{
	return cann_dict_hash(s, len);
}

uint64_t msprof_sys_cycle_time(void)
{
	return clock_ns(CLOCK_MONOTONIC_RAW);
}

/* Under report_lock. */
static void streams_free(void)
{
	size_t i;

	for (i = 0; i < nstreams; i++)
		devdata_rec_buf_free(&streams[i].buf);
	nstreams = 0;
	report_lost = report_refused = 0;
}

void cann_report_start(uint32_t switches)
{
	pthread_mutex_lock(&report_lock);
	streams_free();
	pthread_mutex_unlock(&report_lock);
	atomic_store(&report_on, switches);
}

void cann_report_stop(void)
{
	atomic_store(&report_on, 0);
}

/*
 * "<aging|unaging>.<kind>.<tag>": the tag is the type's registered name
 * (api_event's is "data"), its numbers where it has none a file name can
 * carry or where an earlier stream took that name.
 */
static void stream_base(const struct stream *v, size_t i, char *out,
			size_t len)
{
	const struct stream *s = &v[i];
	char tag[CANN_DICT_NAME];
	size_t n;

	if (s->kind == KIND_API)
		snprintf(tag, sizeof(tag), "data");
	else
		cann_dict_type_name(s->level, s->type, tag, sizeof(tag));
	n = strlen(tag);
	if (!n || strspn(tag, TAG_CHARS) != n)
		snprintf(tag, sizeof(tag), "%u_%u", s->level, s->type);
	snprintf(out, len, "%s.%s.%s", s->aging ? "aging" : "unaging",
		 kinds[s->kind].name, tag);
	while (i--) {
		char other[sizeof(((struct cann_slice *)0)->base)];

		if (s->kind == KIND_API)
			break;
		stream_base(v, i, other, sizeof(other));
		if (!strcmp(other, out)) {
			snprintf(out, len, "%s.%s.%u_%u",
				 s->aging ? "aging" : "unaging",
				 kinds[s->kind].name, s->level, s->type);
			break;
		}
	}
}

/* One stream's records, whole chunks at a time. */
static int write_stream(int dir, const struct stream *v, size_t i,
			uint64_t limit)
{
	const struct rec_buf *b = &v[i].buf;
	char base[sizeof(((struct cann_slice *)0)->base)];
	struct cann_slice sl;
	size_t at, n;
	int err;

	stream_base(v, i, base, sizeof(base));
	err = cann_slice_init(&sl, dir, base, limit);
	for (at = 0; at < b->nr && !err; at += n) {
		n = b->nr - at < REC_BUF_CHUNK ? b->nr - at : REC_BUF_CHUNK;
		err = cann_slice_put(&sl, devdata_rec_buf_at(b, at), b->size, n);
	}
	return cann_slice_close(&sl) ?: err;
}

static int write_host(const char *run, const struct stream *v, size_t n)
{
	uint64_t limit = cann_slice_limit();
	char path[PATH_MAX];
	size_t i;
	int dir, err;

	if (snprintf(path, sizeof(path), "%s/host/data", run) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	err = fsutil_mkdir_p(path, 0755);
	if (err)
		return err;
	dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	for (i = 0; i < n && !err; i++)
		if (v[i].buf.nr)
			err = write_stream(dir, v, i, limit);
	if (!err)
		err = cann_dict_write(dir, limit);
	close(dir);
	return err;
}

int cann_report_flush(const char *run, struct cann_report_stats *st)
{
	struct stream *v = malloc(sizeof(streams));
	size_t i, n;
	int err = 0;

	if (!v)
		return -ENOMEM;
	/* Taken away first: the runtime's threads never wait for the disk. */
	pthread_mutex_lock(&report_lock);
	n = nstreams;
	memcpy(v, streams, n * sizeof(*v));
	*st = (struct cann_report_stats){ .lost = report_lost,
					  .refused = report_refused };
	nstreams = 0;
	report_lost = report_refused = 0;
	pthread_mutex_unlock(&report_lock);
	for (i = 0; i < n; i++) {
		st->records += v[i].buf.nr;
		st->lost += v[i].buf.lost;
	}
	if (st->records)
		err = write_host(run, v, n);
	for (i = 0; i < n; i++)
		devdata_rec_buf_free(&v[i].buf);
	free(v);
	return err;
}
