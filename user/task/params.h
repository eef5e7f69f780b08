/* SPDX-License-Identifier: MIT */
/*
 * The parameters message's JSON as a CANN runtime reads it (its collector's
 * own keys, one compact line, no escapes): see docs/output.md.
 */
#ifndef MSPROF_PARAMS_H
#define MSPROF_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/hostsys.h"

/* What the payload says, beside where the data goes. */
struct params_switches {
	bool acl;		/* --ascendcl */
	bool runtime_api;	/* --runtime-api */
	bool hccl;		/* --hccl */
	bool msproftx;		/* --msproftx */
	bool task_time;		/* --task-time: on, l0 or l1 */
	const char *prof_level;	/* "l0", "l1" (--task-time=on), or "off" */
	int msprof_pid;		/* msprof's own pid, as msprof sends it */
	/*
	 * sample.json's alone (NULL in what a runtime is sent, which would
	 * start msprof's own perf, ltrace and iotop): what --host-sys and
	 * --host-sys-usage asked, for host_sys_pid, the task as it sees itself.
	 */
	const struct hostsys_conf *hostsys;
	int host_sys_pid;
};

/*
 * Writes the payload for result_dir and devices ("all", or msprof's "0,1")
 * into buf; sample.json holds the same line.  -EINVAL if result_dir holds
 * what a runtime's parser cannot take unescaped ('"', '\\', a control
 * character), -E2BIG if the line would not fit in len or exceed 4095 bytes.
 * With hostsys, host_sys lists its elements and msprof's host-sys keys
 * follow (docs/output.md).
 */
int params_build(const struct params_switches *sw, const char *result_dir,
		 const char *devices, char *buf, size_t len);

#endif
