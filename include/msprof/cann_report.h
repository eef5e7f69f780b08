/* SPDX-License-Identifier: MIT */
/*
 * What a runtime calls to report its profiling records, in the shape of
 * CANN's public profiling API (MsprofReportApi, MsprofReportCompactInfo,
 * MsprofReportAdditionalInfo, MsprofRegTypeInfo, MsprofGetHashId,
 * MsprofSysCycleTime), served by libmsprof_agent.so the way CANN's
 * profiling library serves those.  The names are ours: the agent is
 * preloaded into tasks that may load CANN's own library, whose symbols
 * it must never take over.  Records are those of msprof/cann_raw.h; the
 * agent writes them into the window's PROF_ directory at its end.
 */
#ifndef MSPROF_CANN_REPORT_H
#define MSPROF_CANN_REPORT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "msprof/cann_raw.h"

/* What the window collects (the params acl, runtimeApi, taskTime, hcclTrace). */
#define MSPROF_REPORT_ACL	(1u << 0)	/* acl-level and node-level APIs */
#define MSPROF_REPORT_RUNTIME	(1u << 1)	/* runtime-level APIs */
#define MSPROF_REPORT_TASK	(1u << 2)	/* task_track, memcpy_info, node info */
#define MSPROF_REPORT_HCCL	(1u << 3)	/* communication level, hccl_info */

/* The aging flag of CANN's calls: which file group a record goes to (§1). */
#define MSPROF_REPORT_UNAGING	0
#define MSPROF_REPORT_AGING	1

/*
 * The MSPROF_REPORT_* switches of the window now open, 0 outside one: a
 * runtime checks it before it builds a record, so that a call outside a
 * window costs this load only.
 */
uint32_t msprof_report_switches(void);

/* An API record; 0, or -errno (-ENOSPC: the window's buffer was full). */
int msprof_report_api(uint32_t aging, const struct cann_api *api);
/* A CANN_COMPACT_SIZE record (len must be that), header included. */
int msprof_report_compact(uint32_t aging, const void *rec, uint32_t len);
/* A CANN_ADDITIONAL_SIZE record (len must be that), header included. */
int msprof_report_additional(uint32_t aging, const void *rec, uint32_t len);

/*
 * Names (level, type) in the window's type_info_dic; the process keeps
 * it.  name: at most 63 printable characters.  0 or -errno.
 */
int msprof_reg_type_info(uint16_t level, uint32_t type, const char *name);

/*
 * The id hash_dic gives the len bytes of s, the same for the process's
 * life; 0 (no id) for a string with a line break or a full table.
 */
uint64_t msprof_get_hash_id(const char *s, size_t len);

/* The host clock of every record: CLOCK_MONOTONIC_RAW in ns. */
uint64_t msprof_sys_cycle_time(void);

/*
 * The host clock now, for a call about to be reported; 0 outside a
 * window.  The caller's type names are registered (names, once) first.
 */
static inline uint64_t msprof_report_begin(pthread_once_t *once,
					   void (*names)(void))
{
	if (!msprof_report_switches())
		return 0;
	pthread_once(once, names);
	return msprof_sys_cycle_time();
}

/* A string's hash id; 0 for none. */
static inline uint64_t msprof_hash_of(const char *s)
{
	return s ? msprof_get_hash_id(s, strlen(s)) : 0;
}

/*
 * The API call of the calling thread that began at begin (0: outside a
 * window, nothing reported) ends now.  Its end is after every record
 * stamped begin + 1 inside it.
 */
static inline void msprof_report_call(uint16_t level, uint32_t type,
				      uint64_t begin, uint64_t item)
{
	uint64_t end = msprof_sys_cycle_time();
	struct cann_api api = {
		.magic = CANN_MAGIC, .level = level, .type = type,
		.thread_id = (uint32_t)gettid(), .begin = begin,
		.end = end > begin + 1 ? end : begin + 2, .item_id = item,
	};

	if (begin)
		msprof_report_api(MSPROF_REPORT_UNAGING, &api);
}

/* The header of a compact or additional record of the calling thread. */
static inline struct cann_rec_head msprof_rec_head(uint16_t level,
						   uint32_t type,
						   uint32_t body_len,
						   uint64_t timestamp)
{
	return (struct cann_rec_head){
		.magic = CANN_MAGIC, .level = level, .type = type,
		.thread_id = (uint32_t)gettid(), .data_len = body_len,
		.timestamp = timestamp,
	};
}

#endif
