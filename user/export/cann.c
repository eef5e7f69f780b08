// SPDX-License-Identifier: MIT
/*
 * A runtime's raw files into the window's model: dictionaries and clocks,
 * then the host's task_tracks and what binds to them, then each device's
 * tasks matched to them.  The tasks' array is sized once from the files'
 * sizes: pages it does not use are never touched, so they cost nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cann.h"
#include "common/proflayout.h"

static int add_size(const void *rec, const struct cann_src *s, void *ctx)
{
	struct stat st;

	(void)s;
	if (!fstat(*(const int *)rec, &st) && st.st_size > 0)
		*(uint64_t *)ctx += (uint64_t)st.st_size;
	return 0;
}

static int files_size(struct profdata *p, const char *dir, const char *kind,
		      bool prefix, uint64_t *bytes)
{
	return cann_each_rec(p, dir, kind, prefix, 0, true, add_size, bytes);
}

/* Room for every task_track and every device task of no task_track. */
static int presize(struct profdata *p, const struct cann *c, bool *any)
{
	uint64_t tracks = 0, stars = 0, n;
	char dir[32], kind[48];
	struct devtask *v;
	unsigned int d;
	int err = files_size(p, "host/data", "compact.task_track", true, &tracks);

	for (d = 0; d < CANN_MAX_DEVICES && !err; d++) {
		if (!c->dev_known[d])
			continue;
		snprintf(dir, sizeof(dir), PROFDIR_DEVICE_PREFIX "%u/" PROFDIR_DATA, d);
		snprintf(kind, sizeof(kind), "stars_soc.data.%u", d);
		err = files_size(p, dir, kind, false, &stars);
	}
	if (err)
		return err;
	*any = tracks || stars;
	n = p->ntasks + tracks / CANN_COMPACT_SIZE + stars / (2 * sizeof(struct cann_stars_log));
	if (!*any)
		return 0;
	if (n > UINT32_MAX)
		return -ENOMEM;	/* tasks are numbered in 32 bits */
	v = realloc(p->tasks, (size_t)n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->tasks = v;
	p->cap_tasks = (size_t)n;
	return 0;
}

int cann_load(struct profdata *p)
{
	struct cann *c = calloc(1, sizeof(*c));
	size_t from = p->ntasks;
	bool any = false;
	int err;

	if (!c)
		return -ENOMEM;
	p->cann = c;
	err = cann_dicts_load(p, c) ?: cann_clocks_load(p, c) ?: presize(p, c, &any);
	/* The host's APIs are walked at output, even with no task. */
	err = err ?: cann_host_load(p, c);
	if (!err && any)
		err = cann_devices_load(p, c, from);
	return err;
}

void cann_free(struct cann *c)
{
	if (!c)
		return;
	cann_dict_free(&c->types);
	cann_dict_free(&c->hashes);
	free(c);
}
