/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_COLLECTOR_H
#define MSPROF_COLLECTOR_H

#include <errno.h>
#include <stdint.h>

#include "msprof/events.h"
#include "msprof/recfile.h"
#include "osrt_sink.h"
#include "probes.h"
#include "pycode.h"

/* Where one target's host records of the current window go. */
struct collector_sink {
	int tgid;
	struct recfile *file;
	uint64_t api_events;
	uint64_t ioctl_events;
	uint64_t mstx_events;	/* user marks (include/msprof/mstx.h) */
	uint64_t sched_events;	/* thread states (include/msprof/sched.h) */
	struct pycodes *py;	/* its Python stacks; NULL: none taken */
	/* API calls by their stack: one, or why none (enum msprof_pystack_none) */
	uint64_t py_calls[MSPROF_PYSTACK_FIRST + 1];
	char py_text[192];	/* collector_python_text(), made at close */
	struct osrt_sink *osrt;	/* --host-sys=osrt's lines; NULL: not on */
	struct osrt_counts osrt_counts;	/* made at close */
	int err;		/* first write error, reported at stop */
};

/* Demultiplexes the ring buffer's records by tgid into per-target files. */
struct collector {
	/* No more tgids than the kernel's targets map holds send records. */
	struct collector_sink sinks[MSPROF_MAX_TARGETS];
	int nsinks;
	/*
	 * A new process, for the session to adopt; 0 if none.  One at most:
	 * libbpf's ring_buffer__consume() stops at the callback's negative
	 * return (COLLECTOR_PAUSE), right after the fork record, and the
	 * one caller of tracer_consume() takes it before reading on.
	 */
	int forked;
	uint64_t unattributed;		/* records of no target's window */
};

/*
 * What the callback returns after a fork record: reading stops so that the
 * session adopts the new process before its own records come.
 */
#define COLLECTOR_PAUSE (-EAGAIN)

/* The sink of tgid in the current window, or NULL. */
struct collector_sink *collector_find(struct collector *c, int tgid);
/* ring_buffer_sample_fn: ctx is the collector. */
int collector_on_event(void *ctx, void *data, size_t size);
/*
 * Writes the target's host file on fd (made for it; the sink's from now
 * on, even on error), naming every probed API first.
 */
int collector_open(struct collector *c, int tgid, int fd,
		   const struct probe_set *ps);
/* The target's Python stacks go with its records from now on (rt copied). */
int collector_set_python(struct collector *c, int tgid,
			 const struct pyruntime *rt);
/*
 * The target's osrt records go to its host file and to msprof's syscall
 * and pthread files in its PROF_ directory from now on.
 */
int collector_set_osrt(struct collector *c, int tgid,
		       const struct osrt_sink_conf *conf);
/*
 * Reads the code objects of every sink's stacks not read yet, while the
 * task lives: call it after each read of the ring buffer.
 */
void collector_flush(struct collector *c);
/*
 * "Python stacks: 12 of 14 calls (2 on threads with no Python)" of a
 * sink with stacks; "" for one without.
 */
void collector_python_text(const struct collector_sink *s, char *buf, size_t len);
/*
 * A thread-state mark of msprof's (MSPROF_SCHED_BEGIN, _END) at ns, into
 * every open sink: where the kernel's records of the window begin and end.
 */
void collector_sched_mark(struct collector *c, uint16_t what, uint64_t ns);
/*
 * Closes the sink of tgid, hands back its counts (out->py and out->osrt
 * are freed: NULL); the first write error.
 */
int collector_close(struct collector *c, int tgid, struct collector_sink *out);

#endif
