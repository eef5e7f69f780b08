// SPDX-License-Identifier: MIT
/*
 * A PROF_ directory loaded whole: our records (profdata.c), then a
 * runtime's raw files into the same model (cann.c), then the indexes that
 * bind the two.  The one place that knows both readers.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cann.h"
#include "hostsys.h"
#include "mstx.h"
#include "osrt.h"
#include "profdata.h"
#include "queue_match.h"
#include "tstate.h"

/* A window that never closed ends with its last record, the runtime's too. */
static void latest_of_runtime(struct profdata *p)
{
	size_t i;

	if (p->cann)
		profdata_latest(p, p->cann->last_ns);
	for (i = 0; i < p->ntasks; i++)
		profdata_latest(p, p->tasks[i].end_ns);
}

int profdata_load_at(struct profdata *p, int dirfd)
{
	int err = profdata_read_ours(p, dirfd);

	if (err && p->dirfd < 0)
		return err;	/* the metadata's: nothing held yet */
	err = err ?: cann_load(p);
	if (!err && !p->meta.end.mono_ns)
		latest_of_runtime(p);
	err = err ?: profdata_index(p) ?: profdata_queue_match(p);
	err = err ?: mstx_finish(p->mstx) ?:
	      tstate_finish(p->tstate, p->end_mono_ns) ?:
	      osrt_finish(&p->osrt, p->dirfd, profmeta_task_pid(&p->meta)) ?:
	      hostsys_load(p);
	if (err)
		profdata_free(p);
	return err;
}

int profdata_load(struct profdata *p, const char *dir)
{
	int err, fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		memset(p, 0, sizeof(*p));
		p->dirfd = -1;
		return -errno;
	}
	err = profdata_load_at(p, fd);
	close(fd);
	return err;
}

void profdata_free(struct profdata *p)
{
	cann_free(p->cann);
	hostsys_free(p->hostsys);
	p->hostsys = NULL;
	profdata_free_model(p);
}
