/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_SUMMARY_H
#define MSPROF_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "profdata.h"

/*
 * The summaries msprof's export writes beside the timeline in
 * mindstudio_profiler_output/, with its names, headers, row order and
 * number formats (docs/output.md).  Each returns 0 or a
 * negative errno, as export.c's table of outputs wants.
 */

/* api_statistic: per API and level, the host calls' count and times. */
int summary_api_statistic(FILE *fp, const struct profdata *p);
/* op_summary: one row per device task, by device, then start. */
int summary_op_summary(FILE *fp, const struct profdata *p);
/* op_statistic: per device, OP Type and core type, by total time, descending. */
int summary_op_statistic(FILE *fp, const struct profdata *p);
/*
 * communication_statistic: per device and collective's OP Type, its ops'
 * count and times, by total time, descending.
 */
int summary_communication_statistic(FILE *fp, const struct profdata *p);
/* Whether the window has a collective, and so communication_statistic. */
bool summary_has_communication(const struct profdata *p);
/* task_time: one row per device task, by device, then start. */
int summary_task_time(FILE *fp, const struct profdata *p);
/*
 * python_call_site: per innermost Python frame of the calls' stacks, its
 * calls, launches, copies, syncs, host API time and the device tasks and
 * time that followed, costliest first.
 */
int summary_python_call_sites(FILE *fp, const struct profdata *p);
/* Whether any call of the window has a Python stack. */
bool summary_has_python(const struct profdata *p);
/* msprof_tx: the user marks (--msproftx=on), a row each by start. */
int summary_msprof_tx(FILE *fp, const struct profdata *p);
/* Whether the window has user marks, and so msprof_tx. */
bool summary_has_mstx(const struct profdata *p);
/* thread_state: each thread's time in each state (--host-sys=sched). */
int summary_thread_state(FILE *fp, const struct profdata *p);
/* thread_off_cpu: each thread's longest stretches off the CPU, longest first. */
int summary_thread_off_cpu(FILE *fp, const struct profdata *p);
/* Whether the window has thread states, and so those two. */
bool summary_has_tstate(const struct profdata *p);
/*
 * os_runtime_statistic: per name and thread of msprof's syscalls and its
 * four pthread functions, as its analysis makes it from the window's
 * host_syscall.data and host_pthreadcall.data (--host-sys=osrt).
 */
int summary_os_runtime_statistic(FILE *fp, const struct profdata *p);
bool summary_has_osrt(const struct profdata *p);
/* osrt_statistic: every OS runtime call of our records, per name and thread. */
int summary_osrt_statistic(FILE *fp, const struct profdata *p);
bool summary_has_osrt_calls(const struct profdata *p);
/*
 * The host system summaries (--host-sys, --host-sys-usage), each written
 * when the window has its raw file: host_cpu_usage, host_mem_usage,
 * host_network_usage, host_disk_usage (msprof's peaks and recommended
 * sizes); cpu_usage, process_cpu_usage, process_mem, sys_mem (the
 * system's and every process's means).
 */
int summary_host_cpu_usage(FILE *fp, const struct profdata *p);
bool summary_has_host_cpu(const struct profdata *p);
int summary_host_mem_usage(FILE *fp, const struct profdata *p);
bool summary_has_host_mem(const struct profdata *p);
int summary_host_network_usage(FILE *fp, const struct profdata *p);
bool summary_has_host_network(const struct profdata *p);
int summary_host_disk_usage(FILE *fp, const struct profdata *p);
bool summary_has_host_disk(const struct profdata *p);
int summary_cpu_usage(FILE *fp, const struct profdata *p);
bool summary_has_cpu_usage(const struct profdata *p);
int summary_process_cpu_usage(FILE *fp, const struct profdata *p);
bool summary_has_process_cpu(const struct profdata *p);
int summary_process_mem(FILE *fp, const struct profdata *p);
bool summary_has_process_mem(const struct profdata *p);
int summary_sys_mem(FILE *fp, const struct profdata *p);
bool summary_has_sys_mem(const struct profdata *p);
/* README.txt: what each file of the export holds. */
int summary_readme(FILE *fp, const struct profdata *p);

#endif
