// SPDX-License-Identifier: MIT
/* The parameters a CANN runtime's dynamic-profiling server understands. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "msprof/protocol.h"
#include "params.h"

static const char *on_off(bool on)
{
	return on ? "on" : "off";
}

/*
 * A runtime's parser takes a string up to the next '"' and knows no
 * escapes: such a value would be cut or misread, so it is refused.
 */
static bool plain(const char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20 ||
		    *s == 0x7f)
			return false;
	return true;
}

int params_build(const struct params_switches *sw, const char *result_dir,
		 const char *devices, char *buf, size_t len)
{
	const char *level = sw->prof_level ? sw->prof_level : "off";
	int n;

	if (!plain(result_dir) || !plain(devices) || !plain(level))
		return -EINVAL;
	/*
	 * The runtime starts what is on and falls back to its defaults for
	 * every key not here; hostProfiling is what it derives from msproftx.
	 */
	n = snprintf(buf, len,
		     "{\"result_dir\":\"%s\",\"devices\":\"%s\","
		     "\"acl\":\"%s\",\"runtimeApi\":\"%s\",\"taskTime\":\"%s\","
		     "\"taskTrace\":\"%s\",\"hcclTrace\":\"%s\",\"msproftx\":\"%s\","
		     "\"ai_core_profiling\":\"%s\",\"ai_core_profiling_mode\":\"task-based\","
		     "\"aiv_profiling_mode\":\"task-based\","
		     "\"ai_core_metrics\":\"PipeUtilization\",\"aiv_metrics\":\"PipeUtilization\","
		     "\"prof_level\":\"%s\",\"host_sys\":\"\",\"llc_profiling\":\"\","
		     "\"storageLimit\":\"\",\"jobInfo\":\"\",\"msprofBinPid\":%d,"
		     "\"isCancel\":false,\"hostProfiling\":%s}",
		     result_dir, devices, on_off(sw->acl), on_off(sw->runtime_api),
		     on_off(sw->task_time), on_off(sw->task_time),
		     on_off(sw->hccl), on_off(sw->msproftx),
		     on_off(sw->task_time), level, sw->msprof_pid,
		     sw->msproftx ? "true" : "false");
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len || n >= MSPROF_PARAMS_LEN)
		return -E2BIG;
	return 0;
}
