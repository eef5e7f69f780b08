/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PROFLAYOUT_H
#define MSPROF_PROFLAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The PROF_ directory as msprof lays it out (docs/output.md): its name, and
 * the names in it that the controller writes, the stage's copy takes and
 * export reads.
 */

/* "PROF_" 6 digits "_" 17 digits "_" 8 digits 8 letters A-R */
#define PROFDIR_PREFIX		"PROF_"
#define PROFDIR_NAME_LEN	46

#define PROFDIR_HOST		"host"
#define PROFDIR_DATA		"data"		/* under host/ and device_<N>/ */
#define PROFDIR_DEVICE_PREFIX	"device_"	/* device_<N>/ */
#define PROFDIR_DEVICE_TIME	"task_time.data"	/* our agent's, in data/ */
#define PROFDIR_HOST_DATA	PROFDIR_HOST "/" PROFDIR_DATA
#define PROFDIR_HOST_FILE	PROFDIR_HOST_DATA "/host_trace.data"
#define PROFDIR_DEVICE_FILE	PROFDIR_DATA "/" PROFDIR_DEVICE_TIME	/* under device_<id>/ */
/* A runtime marks each finished file with "<file>.done". */
#define PROFDIR_DONE		".done"
/* Our agent's account of its backend: agent_stats_<backend>.json. */
#define PROFDIR_AGENT_STATS_PREFIX	"agent_stats_"
#define PROFDIR_AGENT_STATS_SUFFIX	".json"
/*
 * msprof-ebpf's own account of the window, at the PROF_ root: a name no
 * msprof or msprof-analyze scan takes for its metadata.
 */
#define PROFDIR_FACTS		"msprof_ebpf_window.json"
/* msprof's metadata of the host side (spec §2), one JSON line each. */
#define PROFDIR_HOST_INFO	PROFDIR_HOST "/info.json"
#define PROFDIR_HOST_START	PROFDIR_HOST "/start_info"
#define PROFDIR_HOST_END	PROFDIR_HOST "/end_info"
#define PROFDIR_HOST_START_LOG	PROFDIR_HOST "/host_start.log"
#define PROFDIR_SAMPLE		"sample.json"	/* in host/ and device_<N>/ */
#define PROFDIR_HOST_SAMPLE	PROFDIR_HOST "/" PROFDIR_SAMPLE
/* A device's metadata in device_<N>/: "<base><N>" each. */
#define PROFDIR_DEVICE_INFO	"info.json."
#define PROFDIR_DEVICE_START	"start_info."
#define PROFDIR_DEVICE_END	"end_info."
#define PROFDIR_DEVICE_HOST_START_LOG	"host_start.log."
#define PROFDIR_DEVICE_DEV_START_LOG	"dev_start.log."
#define PROFDIR_DEVICE_META { \
	PROFDIR_DEVICE_INFO, PROFDIR_DEVICE_START, PROFDIR_DEVICE_END, \
	PROFDIR_DEVICE_HOST_START_LOG, PROFDIR_DEVICE_DEV_START_LOG, \
}
#define PROFDIR_OUTPUT		"mindstudio_profiler_output"
#define PROFDIR_ANALYZE		"analyze"	/* --analyze=on */

/*
 * "PROF_<6-digit index>_<YYYYMMDDhhmmssmmm local>_<8-digit pid><8 letters
 * A-R>" as msprof names it; rnd supplies the 8 random bytes.
 * -ENAMETOOLONG if len is too short.
 */
int proflayout_name_make(char *buf, size_t len, unsigned int index,
			 uint64_t real_ns, int pid, const unsigned char rnd[8]);
/* Whether s is a name proflayout_name_make() could have made. */
bool proflayout_name_ok(const char *s);

#endif
