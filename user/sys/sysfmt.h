/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_SYSFMT_H
#define MSPROF_SYSFMT_H

/*
 * The text of msprof's host data files (docs/output.md, "Host system
 * data"), made from what /proc said: each function checks what it reads
 * (every byte of a task's /proc entries is the task's to choose, its comm
 * above all) and writes at most the room it is given.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A chunk being built: what has been appended, within cap. */
struct sysbuf {
	char *v;
	size_t len, cap;
	bool full;		/* an append did not fit: the chunk is cut */
};

void sysbuf_add(struct sysbuf *b, const void *s, size_t n);
void sysbuf_printf(struct sysbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A /proc/<pid>/stat line made safe to write where a line is parsed by
 * whitespace: each byte of its comm (between the first '(' and the last
 * ')') that is not printable ASCII or is a space becomes '_', a line
 * break among them; the line's own final '\n' is left out.  Its length, or
 * 0 if it is no stat line (no "(...)", or text after the comm that is not
 * fields).
 */
size_t sysfmt_stat_clean(char *line, size_t len);
/*
 * Field i (0: the pid, 1: the comm, as proc(5) numbers them less one) of a
 * cleaned stat line, as a number; false if there is none.
 */
bool sysfmt_stat_field(const char *line, size_t len, unsigned int i,
		       unsigned long long *v);
/* A comm made safe as a stat line's (above): at most 15 bytes and NUL. */
void sysfmt_comm_clean(char *comm);

/* read_bytes and write_bytes of a /proc/<pid>/io text; false if missing. */
bool sysfmt_io_parse(const char *text, size_t len, uint64_t *read_bytes,
		     uint64_t *write_bytes);

/* What one iotop -b -P -t line says of a process over one interval. */
struct sysfmt_disk {
	uint64_t real_ns;	/* CLOCK_REALTIME at the interval's end */
	int pid;
	const char *prio;	/* "be/4", as iotop prints it */
	unsigned int uid;
	double read_bps, write_bps;
	double io_pct;		/* < 0: unavailable (no delay accounting) */
	const char *comm;	/* cleaned */
};

/* Appends the iotop line for d, ending in '\n'. */
void sysfmt_disk_line(struct sysbuf *b, const struct sysfmt_disk *d);
/* "start_time <ns>\n": where the analysis puts a slice's first line. */
void sysfmt_disk_start(struct sysbuf *b, uint64_t raw_ns);

/*
 * Appends the lines of text (up to len) that hold a ':' — /proc/net/dev's
 * interfaces, not its two headers — each whole, unchanged.
 */
void sysfmt_netdev_lines(struct sysbuf *b, const char *text, size_t len);
/*
 * Appends the leading lines of /proc/stat's text that start with "cpu":
 * all of them, or (first_only) the total's alone.  The count appended.
 */
unsigned int sysfmt_cpu_lines(struct sysbuf *b, const char *text, size_t len,
			      bool first_only);

/*
 * The head of a block of the per-process and system usage files:
 * TimeStamp, Index and DataLen lines, the payload of payload_len bytes to
 * follow and an empty line after it (sysfmt_usage_end).
 */
void sysfmt_usage_head(struct sysbuf *b, uint64_t raw_ns, unsigned int index,
		       size_t payload_len);
void sysfmt_usage_end(struct sysbuf *b);

#endif
