// SPDX-License-Identifier: MIT
/* Record keeping and file writing shared by the device backends. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/ctrlfile.h"
#include "devdata.h"
#include "common/fsutil.h"
#include "common/proflayout.h"

void devdata_rec_buf_init_max(struct rec_buf *b, size_t size, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->size = size;
	b->max = max < REC_BUF_MAX ? max : REC_BUF_MAX;
}

void devdata_rec_buf_init(struct rec_buf *b, size_t size)
{
	devdata_rec_buf_init_max(b, size, REC_BUF_MAX);
}

void *devdata_rec_buf_slot(struct rec_buf *b)
{
	void **chunk;

	if (b->nr == b->max)
		goto lost;
	chunk = &b->chunk[b->nr / REC_BUF_CHUNK];
	if (!*chunk)
		*chunk = malloc(REC_BUF_CHUNK * b->size);
	if (!*chunk)
		goto lost;
	return (char *)*chunk + b->nr++ % REC_BUF_CHUNK * b->size;
lost:
	b->lost++;
	return NULL;
}

void *devdata_rec_buf_at(const struct rec_buf *b, size_t i)
{
	return (char *)b->chunk[i / REC_BUF_CHUNK] + i % REC_BUF_CHUNK * b->size;
}

void devdata_rec_buf_free(struct rec_buf *b)
{
	size_t i;

	for (i = 0; i < REC_BUF_CHUNKS; i++)
		free(b->chunk[i]);
	devdata_rec_buf_init_max(b, b->size, b->max);
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

struct dev_file {
	uint32_t device;
	struct recfile *f;
};

static int dev_file_open(struct dev_files *df, uint32_t device,
			 struct recfile **out)
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
	err = path_fmt(path, "%s/" PROFDIR_DEVICE_PREFIX "%" PRIu32 "/" PROFDIR_DATA,
		       df->dir, device) ?:
	      fsutil_mkdir_p(path, 0755) ?:
	      path_fmt(path, "%s/" PROFDIR_DEVICE_PREFIX "%" PRIu32 "/"
		       PROFDIR_DEVICE_FILE, df->dir, device) ?:
	      recfile_create(&f, path);
	if (err)
		return err;
	v[df->nr++] = (struct dev_file){ .device = device, .f = f };
	*out = f;
	return 0;
}

int devdata_files_append(struct dev_files *df,
		     const struct msprof_devtask_rec *rec, const char *name)
{
	struct recfile *f;

	return dev_file_open(df, rec->device, &f) ?:
	       recfile_append(f, MSPROF_REC_DEVTASK, rec, sizeof(*rec),
			      name, strlen(name) + 1);
}

int devdata_files_close(struct dev_files *df)
{
	size_t i;
	int err = 0, ret;

	for (i = 0; i < df->nr; i++) {
		ret = recfile_close(df->v[i].f);
		err = err ?: ret;
	}
	free(df->v);
	df->v = NULL;
	df->nr = 0;
	return err;
}

int devdata_stats_write(const char *dir, const char *backend,
		      const char *fields_fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	FILE *fp;
	int err;

	err = path_fmt(path, "%s/" PROFDIR_AGENT_STATS_PREFIX "%s"
		       PROFDIR_AGENT_STATS_SUFFIX, dir, backend);
	if (err)
		return err;
	fp = fopen(path, "we");
	if (!fp)
		return -errno;
	fprintf(fp, "{\"backend\":\"%s\",", backend);
	va_start(ap, fields_fmt);
	vfprintf(fp, fields_fmt, ap);
	va_end(ap);
	fputs("}\n", fp);
	return ctrlfile_close_text(fp);
}

int devdata_run_dir_name(const char *result_dir, char *buf, size_t len)
{
	uint64_t now = clock_ns(CLOCK_REALTIME);
	unsigned char rnd[8];
	char name[64];
	int n;

	/* Not secret: only two windows of one millisecond must differ. */
	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		memcpy(rnd, &now, sizeof(rnd));
	/* A runtime's index is always 1 (spec §2). */
	if (proflayout_name_make(name, sizeof(name), 1, now, (int)getpid(), rnd))
		return -ENAMETOOLONG;
	n = snprintf(buf, len, "%s/%s", result_dir, name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
