/* SPDX-License-Identifier: MIT */
/*
 * How a library beside the runtime puts its own work on a device stream,
 * the way CANN's collective library drives the device's communication
 * engines through the runtime: the work becomes a device task, ordered
 * with the stream's kernels and reported to the task observer like them.
 */
#ifndef NPUSIM_TASK_H
#define NPUSIM_TASK_H

#include <acl/acl.h>

/* Runs on the device's worker thread, once, when the task's turn comes. */
typedef void (*npusim_host_task_fn)(void *arg);

/*
 * Enqueues run(arg) on stream (of the calling thread's current device).
 * name is the task's name as the observer sees it; it must stay valid
 * until the task has run.  Every task enqueued runs, even across a device
 * reset, so run may free arg.  Issues NPUSIM_IOC_SUBMIT, as a launch does.
 */
aclError npusimLaunchHostTask(aclrtStream stream, const char *name,
			      npusim_host_task_fn run, void *arg);

#endif
