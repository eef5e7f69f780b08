// SPDX-License-Identifier: MIT
/*
 * --host-sys-usage's files read back as msprof's Python parsers read them
 * (sys_usage_parser.py, sys_mem_parser.py): blocks of TimeStamp, Index,
 * DataLen, a payload and an empty line; summed as its CSVs sum them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostsys.h"
#include "hostsys_lines.h"

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* "TimeStamp:<digits>": a block begins. */
static bool time_stamp(const char *line)
{
	return starts(line, "TimeStamp:") && line[10] >= '0' && line[10] <= '9';
}

static int by_pid(const void *a, const void *b)
{
	const struct hs_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static struct hs_proc *hs_proc_of(struct hostsys_data *h, int pid)
{
	struct hs_proc key = { .pid = pid }, *p;

	p = h->nprocs ? bsearch(&key, h->procs, h->nprocs, sizeof(*p), by_pid) : NULL;
	if (p)
		return p;
	p = hs_push((void **)&h->procs, &h->nprocs, &h->capprocs, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	qsort(h->procs, h->nprocs, sizeof(*p), by_pid);
	return bsearch(&key, h->procs, h->nprocs, sizeof(*p), by_pid);
}

/* "ProcessName:<name>": what follows the first ':', colons dropped, trimmed. */
static void process_name(const char *line, char *out, size_t len)
{
	const char *at = strchr(line, ':') + 1;
	size_t n = 0;

	while (*at == ' ' || *at == '\t')
		at++;
	for (; *at && n + 1 < len; at++)
		if (*at != ':')
			out[n++] = *at;
	while (n && (out[n - 1] == ' ' || out[n - 1] == '\t' || out[n - 1] == '\r'))
		n--;
	out[n] = '\0';
}

/* Each field of a line as a number, as the tables' REAL columns take them. */
static bool numbers(char **f, size_t n, double *v)
{
	size_t i;
	char *end;

	for (i = 0; i < n; i++) {
		v[i] = strtod(f[i], &end);
		if (end == f[i] || *end || !isfinite(v[i]))
			return false;
	}
	return true;
}

/* ---- host_sys_cpu: the cpu lines' fields, summed over every line --- */

struct flag_st {
	bool in;		/* inside a block */
};

static void *flag_begin(struct hs_src *s)
{
	(void)s;
	return calloc(1, sizeof(struct flag_st));
}

static int free_end(void *p, struct hs_src *s)
{
	(void)s;
	free(p);
	return 0;
}

static int sys_cpu_line(void *p, struct hs_src *s, char *line, size_t len)
{
	struct flag_st *st = p;
	char *f[12];
	double v[10];
	size_t i;

	if (time_stamp(line))
		st->in = true;
	if (!st->in)
		return 0;
	if (!len) {
		st->in = false;
		return 0;
	}
	if (!starts(line, "cpu") || hs_split(line, f, 12) < 11)
		return 0;
	if (!numbers(f + 1, 10, v)) {
		hs_fault(s, 0, "a cpu line whose fields are not numbers");
		return 0;
	}
	for (i = 0; i < 10; i++)
		s->h->sys_cpu[i] += v[i];
	return 0;
}

const struct hs_stream hs_sys_cpu_stream = { flag_begin, sys_cpu_line, free_end, false };

/* ---- host_sys_mem: /proc/meminfo's nine fields, per block ---------- */

static const char *const mem_keys[9] = {
	"MemTotal:", "MemFree:", "Buffers:", "Cached:", "Shmem:", "CommitLimit:",
	"Committed_AS:", "HugePages_Total:", "HugePages_Free:",
};

struct sysmem_st {
	bool in;
	bool have[9];
	long long v[9];
};

static void *sysmem_begin(struct hs_src *s)
{
	(void)s;
	return calloc(1, sizeof(struct sysmem_st));
}

/* "Key:   <n> kB": the number before the unit; HugePages' have none. */
static bool mem_value(char *line, unsigned int k, long long *v, char *unit)
{
	char *f[4], *end;
	size_t n = hs_split(line + strlen(mem_keys[k]), f, 4);

	if (!n)
		return false;
	*v = strtoll(f[0], &end, 10);
	if (k == 0 && n >= 2)
		snprintf(unit, 8, "%s", f[1]);
	return end != f[0] && !*end;
}

static int sys_mem_line(void *p, struct hs_src *s, char *line, size_t len)
{
	struct sysmem_st *st = p;
	struct hostsys_data *h = s->h;
	unsigned int k;
	char unit[8] = "";

	if (time_stamp(line)) {
		st->in = true;
		return 0;
	}
	if (!st->in)
		return 0;
	if (!len) {
		/* The block's end: one row, missing fields counted as none. */
		for (k = 0; k < 9; k++)
			if (st->have[k])
				h->sys_mem[k] += st->v[k];
		h->sys_mem_n++;
		memset(st, 0, sizeof(*st));
		return 0;
	}
	for (k = 0; k < 9 && !starts(line, mem_keys[k]); k++)
		;
	if (k < 9 && mem_value(line, k, &st->v[k], unit))
		st->have[k] = true;
	if (k == 0 && h->sys_mem_n == 0 && *unit)
		snprintf(h->sys_mem_unit, sizeof(h->sys_mem_unit), "%s", unit);
	return 0;
}

const struct hs_stream hs_sys_mem_stream = { sysmem_begin, sys_mem_line, free_end, false };

/* ---- <pid>-CpuUsage: a row per block, closed by its cpu line -------- */

struct pidcpu_st {
	bool in, have_stat;
	int pid;
	double times;		/* utime + stime + cutime + cstime */
	char name[16];
};

static void *pidcpu_begin(struct hs_src *s)
{
	(void)s;
	return calloc(1, sizeof(struct pidcpu_st));
}

/* A row: its share of the system's CPU time, summed for the CSV's mean. */
static int pidcpu_row(struct hs_src *s, struct pidcpu_st *st, char *line)
{
	struct hs_proc *pr;
	double sys = 0, v;
	char *f[64];
	size_t n = hs_split(line, f, 64), i;

	for (i = 1; i < n; i++)
		if (numbers(f + i, 1, &v))
			sys += v;
	if (!st->have_stat)
		return 0;
	pr = hs_proc_of(s->h, st->pid);
	if (!pr)
		return -ENOMEM;
	if (sys > 0)
		pr->cpu_sum += st->times / sys;
	pr->cpu_n++;
	/* A name of the group's first row: the one SQLite's GROUP BY shows. */
	if (!*pr->name)
		memcpy(pr->name, st->name, sizeof(pr->name));
	st->have_stat = false;
	*st->name = '\0';
	return 0;
}

static int pidcpu_line(void *p, struct hs_src *s, char *line, size_t len)
{
	struct pidcpu_st *st = p;
	char *f[18];
	double v[4];

	if (time_stamp(line))
		st->in = true;
	if (!st->in)
		return 0;
	if (line[0] >= '0' && line[0] <= '9') {
		if (hs_split(line, f, 18) < 17 || !numbers(f + 13, 4, v)) {
			hs_fault(s, 0, "a stat line without its times");
			return 0;
		}
		st->pid = atoi(f[0]);
		st->times = v[0] + v[1] + v[2] + v[3];
		st->have_stat = true;
	} else if (strstr(line, "ProcessName")) {
		process_name(line, st->name, sizeof(st->name));
	} else if (starts(line, "cpu")) {
		return pidcpu_row(s, st, line);
	} else if (!len) {
		st->in = false;
	}
	return 0;
}

const struct hs_stream hs_pid_cpu_stream = { pidcpu_begin, pidcpu_line, free_end, false };

/* ---- <pid>-Memory: a row per empty line, the pid the file's -------- */

struct pidmem_st {
	bool in, have;
	long long v[3];		/* size, resident, shared */
	char name[16];
};

static void *pidmem_begin(struct hs_src *s)
{
	(void)s;
	return calloc(1, sizeof(struct pidmem_st));
}

/* "^(\d+) (\d+) ... (\d+)": seven numbers, one space between. */
static bool statm(const char *line, long long *v)
{
	const char *at = line;
	char *end;
	int i;

	for (i = 0; i < 7; i++) {
		if (*at < '0' || *at > '9')
			return false;
		long long x = strtoll(at, &end, 10);

		if (i < 3)
			v[i] = x;
		at = end;
		if (i < 6 && *at++ != ' ')
			return false;
	}
	return true;
}

static int pidmem_line(void *p, struct hs_src *s, char *line, size_t len)
{
	struct pidmem_st *st = p;
	struct hs_proc *pr;

	if (time_stamp(line))
		st->in = true;
	if (st->in && strstr(line, "ProcessName"))
		process_name(line, st->name, sizeof(st->name));
	if (st->in && statm(line, st->v))
		st->have = true;
	if (len)
		return 0;
	/* Every empty line is a row, as the parser has it. */
	pr = hs_proc_of(s->h, s->pid);
	if (!pr)
		return -ENOMEM;
	if (st->have) {
		pr->size += st->v[0];
		pr->resident += st->v[1];
		pr->shared += st->v[2];
	}
	pr->mem_n++;
	if (!*pr->mem_name)
		memcpy(pr->mem_name, st->name, sizeof(pr->mem_name));
	memset(st, 0, sizeof(*st));
	return 0;
}

const struct hs_stream hs_pid_mem_stream = { pidmem_begin, pidmem_line, free_end, false };
