/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_TIMELINE_PARTS_H
#define MSPROF_TIMELINE_PARTS_H

/*
 * What the timeline's writers share (timeline.c drives them): the state
 * of one timeline being written, the trace event format's pieces
 * (timeline_event.c) and each part's entry: the host's slices
 * (timeline_host.c), the devices' (timeline_device.c) and the
 * collectives' (timeline_comm.c).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "comm.h"
#include "copy_calls.h"
#include "msprof/probe_packs.h"
#include "outbuf.h"
#include "profdata.h"

/* msprof's process sort indexes (meta_data_event.h), the pid's middle. */
enum {
	SORT_FRAMEWORK = 6,	/* "PID Name": the task's user marks */
	SORT_CANN = 7,
	SORT_TSTATE = 8,	/* ours: thread states, right after CANN (msprof's DPU) */
	SORT_CPU_USAGE = 9,	/* then Memory, Network and Disk Usage */
	SORT_OSRT = 13,
	SORT_HARDWARE = 14,
	SORT_AICORE_FREQ = 15,
	SORT_COMMUNICATION = 16,
	SORT_OVERLAP = 31,
};

#define HOST_DEVICE	31	/* the pid's device field for host processes */
#define NO_ID		4294967295U	/* msprof's "none": a task with no model, subtask */

/*
 * A literal's bytes, copied inline when they fit (most appends are short
 * constant keys: a call to ob_str and its strlen cost more than the copy).
 */
#define LIT(b, s) lit(b, s, sizeof(s) - 1)

static inline void lit(struct outbuf *b, const char *s, size_t n)
{
	if (b->len + n <= OUTBUF_SIZE) {
		memcpy(b->buf + b->len, s, n);
		b->len += n;
	} else {
		ob_strn(b, s, n);
	}
}

/* The ids seen (threads, streams), each once after tl_idset_close(). */
struct idset {
	uint32_t *v;
	size_t n, cap;
};

/* Where, in text, the parts of an API's events that never change lie. */
struct span {
	size_t off, len;
};

struct api_text {
	struct span head;	/* {"name":"AscendCL@x","pid":N,"tid": */
	struct span mid;	/* ,"Mode":..,"connection_id": */
	struct span key[MSPROF_PROBE_ARGS];	/* ,"count": ; len 0: not kept */
};

struct tl {
	struct outbuf ob;
	const struct profdata *p;
	uint64_t pid;		/* info.json's */
	bool first;
	char *text;		/* the api_text spans' bytes */
	size_t text_len;
	struct api_text api[MSPROF_MAX_APIS];
	struct idset io_tids;	/* threads with ioctls or OS runtime calls */
	struct idset cann_tids;	/* threads with runtime-reported calls */
	/*
	 * By our call (connection id - 1): the runtime's record of the same
	 * call, as its place among the API records (0: none); allocated at
	 * the first such call.
	 */
	uint32_t *cann_of;
	struct copy_calls copies;
	struct comm_ops comm;	/* the collectives */
};

static inline uint64_t tl_pid(const struct tl *t, unsigned int sort, uint32_t dev)
{
	/* Five bits of device: msprof's layout, 31 being the host. */
	return t->pid << 10 | (uint64_t)sort << 5 | (dev & 31);
}

/* The id of a flow from our call conn: conn << 32, as msprof's. */
static inline unsigned __int128 tl_conn_flow(uint64_t conn)
{
	return (unsigned __int128)conn << 32;
}

/* timeline_event.c: the events' pieces, in msprof's key order. */
void tl_idset_close(struct idset *s);
int tl_idset_add(struct idset *s, uint32_t id);
void tl_start(struct tl *t);
void tl_head(struct tl *t, const char *name, uint64_t pid, uint64_t tid);
void tl_ts(struct tl *t, uint64_t mono_ns);
/* The same of a time already on msprof's epoch scale. */
void tl_ts_epoch(struct tl *t, uint64_t epoch_ns);
void tl_span_args(struct tl *t, uint64_t start_ns, uint64_t end_ns);
/*
 * {"name":..,"ts":..,"pid":..,"tid":0,"args":{key:v},"ph":"C"}: msprof's
 * key order for a counter, v as Python writes a float; number_ts: ts a
 * number, as msprof's Network Usage has it, not a string.
 */
void tl_counter(struct tl *t, const char *name, uint64_t pid, uint64_t epoch_ns,
		bool number_ts, const char *key, double v);
/* ",\"Call stack\":..." of a Python stack's chain (pystack.h); nothing for 0. */
void tl_call_stack(struct tl *t, uint32_t chain);
void tl_process(struct tl *t, const char *name, const char *label,
		unsigned int sort, uint32_t dev);
void tl_thread(struct tl *t, uint64_t pid, uint32_t tid, const char *name,
	       uint64_t sort);
void tl_numbered_thread(struct tl *t, uint64_t pid, const char *what,
			uint32_t tid);
void tl_flow_id(struct tl *t, unsigned __int128 id, uint64_t pid,
		uint32_t tid, bool finish, uint64_t at_ns);
void tl_flow(struct tl *t, unsigned __int128 id, uint32_t from_tid,
	     uint64_t from_ns, uint64_t pid, uint32_t tid, uint64_t to_ns);

/*
 * timeline_host.c: the API texts rendered once; the CANN process and the
 * threads of our calls; the host's slices (the runtime's calls, then ours,
 * which carry the ids of its same calls, and the ioctls); the threads only
 * the runtime's calls were seen on; the OS Runtime API process.
 */
int tl_api_texts(struct tl *t);
void tl_cann_names(struct tl *t);
int tl_host(struct tl *t);
void tl_cann_tids(struct tl *t);
void tl_osrt_names(struct tl *t);

/*
 * timeline_device.c: each device's processes and threads; the device
 * tasks' slices and flows; the Overlap Analysis slices; the AI Core Freq
 * counters of each device the runtime described.
 */
int tl_device_names(struct tl *t);
void tl_tasks(struct tl *t);
int tl_overlap(struct tl *t);
void tl_aicore_freq(struct tl *t);

/*
 * timeline_comm.c: a device's Communication process and its threads (none
 * without collectives); the collectives' ops and tasks.
 */
int tl_comm_names(struct tl *t, uint32_t dev, const char *label);
void tl_comm_ops(struct tl *t);

/* timeline_mstx.c: the user marks' process, threads and slices. */
int tl_mstx(struct tl *t);

/* timeline_tstate.c: the thread states' process, threads and slices. */
int tl_tstate(struct tl *t);
/* timeline_osrt.c: the OS runtime calls' slices (--host-sys=osrt). */
int tl_osrt(struct tl *t);
/*
 * timeline_hostsys.c: the CPU, Memory, Network and Disk Usage processes
 * (--host-sys), their counters.
 */
int tl_hostsys(struct tl *t);

#endif
