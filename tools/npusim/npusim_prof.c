// SPDX-License-Identifier: MIT
/* The task observer a profiler installs through npusimSetTaskObserver. */
#include <errno.h>

#include "npusim_internal.h"

/*
 * Workers hold it for reading around each callback; installing holds it
 * for writing, which is what lets the old observer's ctx be freed safely.
 * Writers go first so that busy workers cannot starve an uninstall.
 */
static pthread_rwlock_t obs_lock =
	PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static npusim_task_observer_fn obs_fn;
static void *obs_ctx;

/* Set while this thread runs the observer, which must not reinstall. */
static __thread bool in_observer;

__attribute__((visibility("default")))
int npusimSetTaskObserver(npusim_task_observer_fn fn, void *ctx)
{
	if (in_observer)
		return -EDEADLK;
	pthread_rwlock_wrlock(&obs_lock);
	obs_fn = fn;
	obs_ctx = ctx;
	pthread_rwlock_unlock(&obs_lock);
	return 0;
}

void npusim_prof_report(const struct npusim_task_record *rec)
{
	pthread_rwlock_rdlock(&obs_lock);
	if (obs_fn) {
		in_observer = true;
		obs_fn(rec, obs_ctx);
		in_observer = false;
	}
	pthread_rwlock_unlock(&obs_lock);
}
