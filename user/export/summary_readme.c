// SPDX-License-Identifier: MIT
/* README.txt: what each file of mindstudio_profiler_output/ holds. */
#include <errno.h>
#include <stdbool.h>

#include "summary.h"

struct described {
	const char *name;	/* as msprof's README names it: no stamp */
	const char *desc;
	bool (*has)(const struct profdata *p);	/* NULL: always written */
};

/*
 * The files export.c's table of outputs writes; tests/e2e/test_summary.sh
 * checks that this list and the directory agree.
 */
static const struct described timelines[] = {
	{ "msprof", "The timeline (Chrome Trace Event array, for MindStudio Insight, "
		    "Perfetto or chrome://tracing): the task's API calls by thread, "
		    "the driver calls they made, and each device task by stream, "
		    "with a flow from the call that launched it.\n", NULL },
};

static const struct described summaries[] = {
	{ "api_statistic", "The host API calls, one row per API and level: how "
			   "many, their total, mean, shortest and longest time (us) "
			   "and the population variance of their times (us^2).\n", NULL },
	{ "op_summary", "Every device task, by device and start: its task and "
			"stream ids, op name and type, task type, start (us since "
			"the epoch), duration and wait since the device's previous "
			"task ended (us), and block count; what the recorder cannot "
			"know (shapes, formats, op state) is N/A.\n", NULL },
	{ "op_statistic", "The device tasks per device, op type and core type: "
			  "count, total, shortest, mean and longest time (us) and "
			  "the share of the device's task time (%), largest total "
			  "first.\n", NULL },
	{ "task_time", "Every device task, by device and start: kernel name and "
		       "type, stream and task id, duration, start and end (us).\n", NULL },
	{ "communication_statistic", "The collective communication ops per "
				     "device and op type: count, total, shortest, "
				     "mean and longest time (us) and the share of "
				     "the device's communication time (%), largest "
				     "total first.\n", summary_has_communication },
	{ "python_call_site", "Per line of the task's Python code (the innermost "
			      "frame of its calls' stacks): its calls, launches, "
			      "copies and syncs, their host API time, and the device "
			      "tasks and device time (us) that followed, costliest "
			      "first.\n", summary_has_python },
	{ "msprof_tx", "The task's user marks (mstx, with --msproftx=on), by "
		       "start: thread, event type (marker or start/end), start "
		       "and end (us since the epoch) and message.\n",
	  summary_has_mstx },
	{ "thread_state", "Each thread's time (us) running, runnable (waiting "
			  "for a CPU), sleeping, uninterruptible, stopped and "
			  "unknown (a lost record), with --host-sys=sched; how often "
			  "it left a CPU and was woken, and whether it exited.\n",
	  summary_has_tstate },
	{ "thread_off_cpu", "Each thread's ten longest stretches off the CPU, "
			    "longest first: start, duration and the part spent "
			    "runnable (us), the state it left for, the syscall and "
			    "API call it was in, and who woke it.\n",
	  summary_has_tstate },
	{ "os_runtime_statistic", "The syscalls of msprof's list and its four pthread "
				  "functions (--host-sys=osrt), one row per name and "
				  "thread, as msprof's analysis makes it from "
				  "host_syscall.data and host_pthreadcall.data: the "
				  "share of their total time (a fraction), total, count, "
				  "mean, longest and shortest time (us), largest total "
				  "first.\n", summary_has_osrt },
	{ "osrt_statistic", "Every OS runtime call recorded (--host-sys=osrt): "
			    "each syscall, msprof's four pthread functions and the "
			    "lock and wait calls that blocked, one row per name and "
			    "thread: kind, syscall number, share of the total time "
			    "(%), total, count, mean, longest and shortest time and "
			    "the time spent blocked in syscalls (us), largest total "
			    "first.\n", summary_has_osrt_calls },
	{ "host_cpu_usage", "The target's CPU use (--host-sys=cpu): the host's "
			    "CPUs, how many its threads ran on, and on how many "
			    "they ever used any.\n", summary_has_host_cpu },
	{ "host_mem_usage", "The target's resident memory (--host-sys=mem): the "
			    "host's total, its peak and the size recommended for "
			    "it (KB).\n", summary_has_host_mem },
	{ "host_network_usage", "The host's network (--host-sys=network): the "
				"cards' speed, the peak and recommended rate "
				"(KB/s).\n", summary_has_host_network },
	{ "host_disk_usage", "The target's disk I/O (--host-sys=disk): peak and "
			     "recommended read and write rates (KB/s).\n",
	  summary_has_host_disk },
	{ "cpu_usage", "The host's CPU time by kind (--host-sys-usage=cpu): user, "
		       "sys, iowait, irq, soft and idle (%).\n",
	  summary_has_cpu_usage },
	{ "process_cpu_usage", "Every process's share of the host's CPU time "
			       "(--host-sys-usage=cpu), largest first.\n",
	  summary_has_process_cpu },
	{ "process_mem", "Every process's mean size, resident and shared memory "
			 "(pages, --host-sys-usage=mem), largest first.\n",
	  summary_has_process_mem },
	{ "sys_mem", "The host's mean memory figures from /proc/meminfo "
		     "(--host-sys-usage=mem).\n", summary_has_sys_mem },
};

static void section(FILE *fp, const char *title, const struct described *d,
		    size_t n, const char *ext, const struct profdata *p)
{
	size_t i, k = 0;

	fputs(title, fp);
	for (i = 0; i < n; i++)
		if (!d[i].has || d[i].has(p))
			fprintf(fp, "%zu.%s.%s:%s", ++k, d[i].name, ext, d[i].desc);
	fputc('\n', fp);
}

int summary_readme(FILE *fp, const struct profdata *p)
{
	section(fp, "Timeline file description:\n", timelines,
		sizeof(timelines) / sizeof(timelines[0]), "json", p);
	section(fp, "Summary file description:\n", summaries,
		sizeof(summaries) / sizeof(summaries[0]), "csv", p);
	return ferror(fp) ? -EIO : 0;
}
