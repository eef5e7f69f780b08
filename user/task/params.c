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

/* The elements of mask set, comma separated, into out. */
static void names_of(unsigned int mask, const char *const *names,
		     unsigned int nr, char *out, size_t len)
{
	unsigned int i;
	size_t at = 0;

	*out = '\0';
	for (i = 0; i < nr; i++)
		if (mask & 1u << i)
			at += (size_t)snprintf(out + at, at < len ? len - at : 0,
					       "%s%s", at ? "," : "", names[i]);
}

/*
 * msprof's sample.json keys for --host-sys (prof_params.h), after the
 * line's last key: host_disk_freq is what the analysis reads of them.
 */
static int host_keys(const struct params_switches *sw, char *buf, size_t len,
		     size_t n)
{
	const struct hostsys_conf *h = sw->hostsys;
	char usage[32];
	int m;

	names_of(h->usage, hostsys_usage_names, NR_HOSTSYS_USAGE, usage,
		 sizeof(usage));
	if (n < 1 || n >= len)
		return -E2BIG;
	m = snprintf(buf + n - 1, len - n + 1,
		     ",\"host_sys_pid\":%d,\"host_cpu_profiling\":\"%s\","
		     "\"host_mem_profiling\":\"%s\",\"host_disk_profiling\":\"%s\","
		     "\"host_network_profiling\":\"%s\",\"host_osrt_profiling\":\"%s\","
		     "\"host_disk_freq\":%d,\"hostSysUsage\":\"%s\","
		     "\"hostProfilingSamplingInterval\":%u,"
		     "\"hostAllPidCpuProfiling\":\"%s\",\"hostAllPidMemProfiling\":\"%s\"}",
		     sw->host_sys_pid, on_off(hostsys_on(h, HOSTSYS_CPU)),
		     on_off(hostsys_on(h, HOSTSYS_MEM)),
		     on_off(hostsys_on(h, HOSTSYS_DISK)),
		     on_off(hostsys_on(h, HOSTSYS_NETWORK)),
		     on_off(hostsys_on(h, HOSTSYS_OSRT)),
		     h->items ? 1000 / HOSTSYS_PERIOD_MS : 0, usage,
		     h->usage ? hostsys_usage_period_ms(h) : 0,
		     on_off(hostsys_usage_on(h, HOSTSYS_USAGE_CPU)),
		     on_off(hostsys_usage_on(h, HOSTSYS_USAGE_MEM)));
	if (m < 0 || (size_t)m >= len - n + 1 || n - 1 + (size_t)m >= MSPROF_PARAMS_LEN)
		return -E2BIG;
	return 0;
}

int params_build(const struct params_switches *sw, const char *result_dir,
		 const char *devices, char *buf, size_t len)
{
	const char *level = sw->prof_level ? sw->prof_level : "off";
	char host_sys[64] = "";
	int n;

	if (sw->hostsys)
		names_of(sw->hostsys->items, hostsys_item_names, NR_HOSTSYS,
			 host_sys, sizeof(host_sys));
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
		     "\"prof_level\":\"%s\",\"host_sys\":\"%s\",\"llc_profiling\":\"\","
		     "\"storageLimit\":\"\",\"jobInfo\":\"\",\"msprofBinPid\":%d,"
		     "\"isCancel\":false,\"hostProfiling\":%s}",
		     result_dir, devices, on_off(sw->acl), on_off(sw->runtime_api),
		     on_off(sw->task_time), on_off(sw->task_time),
		     on_off(sw->hccl), on_off(sw->msproftx),
		     on_off(sw->task_time), level, host_sys, sw->msprof_pid,
		     sw->msproftx ? "true" : "false");
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len || n >= MSPROF_PARAMS_LEN)
		return -E2BIG;
	return sw->hostsys ? host_keys(sw, buf, len, (size_t)n) : 0;
}
