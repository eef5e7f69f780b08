/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_OSRT_TEXT_H
#define MSPROF_OSRT_TEXT_H

/*
 * The lines of msprof's host_syscall.data (perf trace's, one a syscall)
 * and host_pthreadcall.data (ltrace's, one a pthread call): written by the
 * collector from our records, and read back by the export as Huawei's
 * analysis reads them (host-sys-formats.md §3.5), quirks and all, so that
 * what it makes of a file and what we make of it agree.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest line a writer makes, its '\n' included. */
#define OSRT_LINE_MAX	512
/* Bytes of a thread's name kept in a line: the kernel's comm. */
#define OSRT_COMM_MAX	16

/* One completed call, as a line says it. */
struct osrt_line_call {
	uint64_t raw_ns;	/* its start, CLOCK_MONOTONIC_RAW */
	uint64_t dur_ns;
	const char *who;	/* perf: the thread's name; ltrace: the caller */
	uint32_t tid;		/* as the task sees itself */
	const char *name;	/* the syscall or function */
	const uint64_t *args;
	unsigned int nargs;
	int64_t ret;
};

/*
 * "<ms>.<µs> (<ms>.<µs> ms): <who>/<tid> <name>(a0: 0x.., ...) = <ret>\n",
 * times rounded to the µs as perf trace prints them.  buf holds at least
 * OSRT_LINE_MAX bytes; the line's length.
 */
size_t osrt_perf_line(char *buf, const struct osrt_line_call *c);
/*
 * "[pid <tid>] <s>.<µs> <who>-><name>(0x.., ...) = <ret> <<s>.<µs>>\n",
 * as ltrace -ttt -T prints a call; the same buffer.
 */
size_t osrt_ltrace_line(char *buf, const struct osrt_line_call *c);
/*
 * Each file's first line: a call at raw_ns exactly (the window's
 * start_info clockMonotonicRaw), that the analysis takes its time offset
 * from and then drops (getpid is no name it keeps; pthread_once it always
 * drops), so that every other line keeps its time.  who and pid: the task.
 */
size_t osrt_perf_sentinel(char *buf, uint64_t raw_ns, const char *who, uint32_t pid);
size_t osrt_ltrace_sentinel(char *buf, uint64_t raw_ns, const char *who, uint32_t pid);

/*
 * A name fit for a line's one token, in dst (OSRT_COMM_MAX bytes): the
 * analysis splits lines at blanks and ':' and a thread's name at '/', so
 * every byte but letters, digits and "_.-+" becomes '_'; "?" for none.
 */
void osrt_clean_name(char *dst, const char *src, size_t n);

/*
 * Whether the analysis keeps a syscall of this name: it holds one of
 * msprof's 143 names (a substring: timerfd_create holds "creat").
 */
bool osrt_msprof_keeps(const char *name, size_t len);

/*
 * A line as the analysis reads it.  timed: it has the time part the
 * analysis takes its time offset from (start and duration parsed, as
 * text); kept: it is a row.  name, tid: pointers into the line.
 */
struct osrt_parsed {
	bool timed;
	bool kept;
	double dur_ns;		/* as the analysis computes it, in doubles */
	const char *name;
	size_t name_len;
	const char *tid;	/* the thread, as text; NULL: the task's own */
	size_t tid_len;
};

/*
 * A host_syscall.data line (len bytes, no '\n').  now_s: the analysis
 * drops a call that ends after this epoch second (perf's own clock).
 */
void osrt_parse_perf(const char *line, size_t len, double now_s,
		     struct osrt_parsed *out);
/* A host_pthreadcall.data line. */
void osrt_parse_ltrace(const char *line, size_t len, struct osrt_parsed *out);

#endif
