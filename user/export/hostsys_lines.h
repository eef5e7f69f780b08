/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_HOSTSYS_LINES_H
#define MSPROF_HOSTSYS_LINES_H

/*
 * What the host system files' readers share (hostsys.c drives them): a
 * slice's lines, one by one within a bound, and each format's parser
 * (hostsys_parse.c: cpu, mem, network, disk; hostsys_usage.c: the
 * per-process and system files).
 */
#include <stdbool.h>
#include <stddef.h>

#include "profdata.h"

struct hostsys_data;

/* A line longer than this is no line of these formats: skipped whole. */
#define HS_LINE_MAX	8192

struct hs_lines {
	int fd;
	char *buf;		/* HS_LINE_MAX * 8 */
	size_t at, len;
	bool eof;
	unsigned long long off;	/* the file offset of the line handed out */
	unsigned long long next_off;
	unsigned int skipped;	/* lines too long */
	bool skipping;		/* inside one: dropped up to its end */
};

/*
 * The next line, '\n' left out and NUL-ended in place; false at the end
 * (or a read error: what was read is kept).
 */
bool hs_next_line(struct hs_lines *r, char **line, size_t *len);

/* The file being read, for its problems. */
struct hs_src {
	struct profdata *p;
	struct hostsys_data *h;
	const char *file;	/* relative to the PROF_ directory */
	int pid;		/* a per-process file's, from its name */
};

void hs_fault(const struct hs_src *s, unsigned long long off, const char *what);
/* Appends an element to *v (n, cap), zeroed: NULL when memory runs out. */
void *hs_push(void **v, size_t *n, size_t *cap, size_t size);

/*
 * One stream of a kind, over its slices in order: begin, each line, end.
 * The cpu, mem and network streams run on across slices (msprof's
 * analysis starts again at each, losing the interval between them);
 * disk's start again at each slice (its start_time is a slice's own).
 */
struct hs_stream {
	void *(*begin)(struct hs_src *s);
	int (*line)(void *st, struct hs_src *s, char *line, size_t len);
	int (*end)(void *st, struct hs_src *s);
	bool per_slice;
};

extern const struct hs_stream hs_cpu_stream, hs_mem_stream, hs_net_stream,
	hs_disk_stream, hs_sys_cpu_stream, hs_sys_mem_stream,
	hs_pid_cpu_stream, hs_pid_mem_stream;

/*
 * Splits s at runs of whitespace (as Python's str.split()), in place: up
 * to max fields, their count (the rest is left in the last).
 */
size_t hs_split(char *s, char **tok, size_t max);
/* num / den rounded to a whole number, a half to even (Decimal.quantize). */
unsigned __int128 hs_div_even(unsigned __int128 num, unsigned __int128 den);

#endif
