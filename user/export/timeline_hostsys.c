// SPDX-License-Identifier: MIT
/*
 * The timeline's host system processes, as msprof's Python export writes
 * them (sheet §4): CPU Usage (9), Memory Usage (10), Network Usage (11),
 * Disk Usage (12), each a counter ("C") per interval at its start, on
 * thread 0; CPU Usage names a thread per CPU, "CPU Avg" among them.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostsys.h"
#include "timeline_parts.h"

enum { SORT_MEM_USAGE = SORT_CPU_USAGE + 1, SORT_NET_USAGE, SORT_DISK_USAGE };

/* Python's round(v, 3): the double nearest the decimal rounding of v. */
static double round3(double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.3f", v);
	return strtod(buf, NULL);
}

/*
 * msprof's order of CPUs, SQLite's ORDER BY CAST(cpu_no AS DECIMAL) over
 * the distinct ones: by number, "Avg" casting to 0, and equal keys (CPU 0
 * and Avg) as they first came in the rows.
 */
struct cpu_seen {
	int32_t cpu;
	size_t first;
};

static int by_key(const void *a, const void *b)
{
	const struct cpu_seen *x = a, *y = b;
	int32_t kx = x->cpu == HS_CPU_AVG ? 0 : x->cpu, ky = y->cpu == HS_CPU_AVG ? 0 : y->cpu;

	if (kx != ky)
		return (kx > ky) - (kx < ky);
	return (x->first > y->first) - (x->first < y->first);
}

static void cpu_name(char *buf, size_t len, int32_t cpu)
{
	if (cpu == HS_CPU_AVG)
		snprintf(buf, len, "CPU Avg");
	else
		snprintf(buf, len, "CPU %d", cpu);
}

static int cpu_track(struct tl *t, const struct hostsys_data *h)
{
	uint64_t pid = tl_pid(t, SORT_CPU_USAGE, HOST_DEVICE);
	struct cpu_seen *ids = malloc(h->ncpu * sizeof(*ids));
	size_t i, j, n = 0;
	char name[32];

	if (!ids)
		return -ENOMEM;
	for (i = 0; i < h->ncpu; i++) {
		for (j = 0; j < n && ids[j].cpu != h->cpu[i].cpu; j++)
			;
		if (j == n)
			ids[n++] = (struct cpu_seen){ h->cpu[i].cpu, i };
	}
	qsort(ids, n, sizeof(*ids), by_key);
	tl_process(t, "CPU Usage", "CPU", SORT_CPU_USAGE, HOST_DEVICE);
	/* Each CPU's thread is its rank; the counters are all on thread 0. */
	for (i = 0; i < n; i++) {
		cpu_name(name, sizeof(name), ids[i].cpu);
		tl_thread(t, pid, (uint32_t)i, name, i);
	}
	free(ids);
	for (i = 0; i < h->ncpu; i++) {
		cpu_name(name, sizeof(name), h->cpu[i].cpu);
		tl_counter(t, name, pid, hostsys_epoch(h, h->cpu[i].start), false,
			   "Usage(%)", h->cpu[i].usage);
	}
	return 0;
}

/*
 * One of the single-counter processes: n rows of size bytes, each starting
 * with its interval's start (raw ns) and holding its value at val.
 */
static void usage_track(struct tl *t, const struct hostsys_data *h,
			const char *name, unsigned int sort, const void *rows,
			size_t n, size_t size, size_t val, bool number_ts,
			bool rounded)
{
	uint64_t pid = tl_pid(t, sort, HOST_DEVICE), start;
	const char *row = rows;
	double v;
	size_t i;

	if (!n)
		return;
	tl_process(t, name, "CPU", sort, HOST_DEVICE);
	for (i = 0; i < n; i++, row += size) {
		memcpy(&start, row, sizeof(start));
		memcpy(&v, row + val, sizeof(v));
		tl_counter(t, name, pid, hostsys_epoch(h, start), number_ts,
			   "Usage(%)", rounded ? round3(v) : v);
	}
}

int tl_hostsys(struct tl *t)
{
	const struct hostsys_data *h = t->p->hostsys;
	int err = 0;

	if (!h)
		return 0;
	if (h->ncpu)
		err = cpu_track(t, h);
	/* Memory's value rounded to 3 places, Network's ts a number: msprof's. */
	usage_track(t, h, "Memory Usage", SORT_MEM_USAGE, h->mem, h->nmem,
		    sizeof(*h->mem), offsetof(struct hs_mem_row, usage), false, true);
	usage_track(t, h, "Network Usage", SORT_NET_USAGE, h->net, h->nnet,
		    sizeof(*h->net), offsetof(struct hs_net_row, usage), true, false);
	usage_track(t, h, "Disk Usage", SORT_DISK_USAGE, h->disk, h->ndisk,
		    sizeof(*h->disk), offsetof(struct hs_disk_row, usage), false, false);
	return err;
}
