// SPDX-License-Identifier: MIT
/*
 * The timeline's host system processes, as msprof's Python export writes
 * them (sheet §4): CPU Usage (9), Memory Usage (10), Network Usage (11),
 * Disk Usage (12), each a counter ("C") per interval at its start, on
 * thread 0; CPU Usage names a thread per CPU, "CPU Avg" among them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "hostsys.h"
#include "timeline_parts.h"

enum { SORT_MEM_USAGE = SORT_CPU_USAGE + 1, SORT_NET_USAGE, SORT_DISK_USAGE };

/*
 * {"name":..,"ts":..,"pid":..,"tid":0,"args":{"Usage(%)":v},"ph":"C"}:
 * msprof's key order for counters; number_ts: Network's ts is a number.
 */
static void counter(struct tl *t, const char *name, uint64_t pid,
		    uint64_t epoch_ns, bool number_ts, double v)
{
	tl_start(t);
	ob_json_str(&t->ob, name);
	if (number_ts) {
		LIT(&t->ob, ",\"ts\":");
		ob_us3(&t->ob, epoch_ns);
	} else {
		tl_ts_epoch(t, epoch_ns);
	}
	LIT(&t->ob, ",\"pid\":");
	ob_u64(&t->ob, pid);
	LIT(&t->ob, ",\"tid\":0,\"args\":{\"Usage(%)\":");
	ob_py_float(&t->ob, v);
	LIT(&t->ob, "},\"ph\":\"C\"}");
}

/* Python's round(v, 3): the double nearest the decimal rounding of v. */
static double round3(double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.3f", v);
	return strtod(buf, NULL);
}

/* msprof's order of CPUs: by number, "Avg" casting to 0, after CPU 0. */
static int cpu_key(int32_t cpu)
{
	return cpu == HS_CPU_AVG ? 1 : cpu == 0 ? 0 : 2 * cpu + 1;
}

static int by_key(const void *a, const void *b)
{
	int x = cpu_key(*(const int32_t *)a), y = cpu_key(*(const int32_t *)b);

	return (x > y) - (x < y);
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
	int32_t *ids = malloc(h->ncpu * sizeof(*ids));
	size_t i, j, n = 0;
	char name[32];

	if (!ids)
		return -ENOMEM;
	for (i = 0; i < h->ncpu; i++)
		ids[n++] = h->cpu[i].cpu;
	qsort(ids, n, sizeof(*ids), by_key);
	for (i = 1, j = n ? 1 : 0; i < n; i++)
		if (ids[i] != ids[j - 1])
			ids[j++] = ids[i];
	n = j;
	tl_process(t, "CPU Usage", "CPU", SORT_CPU_USAGE, HOST_DEVICE);
	/* Each CPU's thread is its rank; the counters are all on thread 0. */
	for (i = 0; i < n; i++) {
		cpu_name(name, sizeof(name), ids[i]);
		tl_thread(t, pid, (uint32_t)i, name, i);
	}
	free(ids);
	for (i = 0; i < h->ncpu; i++) {
		cpu_name(name, sizeof(name), h->cpu[i].cpu);
		counter(t, name, pid, hostsys_epoch(h, h->cpu[i].start), false,
			h->cpu[i].usage);
	}
	return 0;
}

int tl_hostsys(struct tl *t)
{
	const struct hostsys_data *h = t->p->hostsys;
	uint64_t pid;
	size_t i;
	int err = 0;

	if (!h)
		return 0;
	if (h->ncpu)
		err = cpu_track(t, h);
	if (h->nmem) {
		tl_process(t, "Memory Usage", "CPU", SORT_MEM_USAGE, HOST_DEVICE);
		pid = tl_pid(t, SORT_MEM_USAGE, HOST_DEVICE);
		for (i = 0; i < h->nmem; i++)
			counter(t, "Memory Usage", pid, hostsys_epoch(h, h->mem[i].start),
				false, round3(h->mem[i].usage));
	}
	if (h->nnet) {
		tl_process(t, "Network Usage", "CPU", SORT_NET_USAGE, HOST_DEVICE);
		pid = tl_pid(t, SORT_NET_USAGE, HOST_DEVICE);
		for (i = 0; i < h->nnet; i++)
			counter(t, "Network Usage", pid, hostsys_epoch(h, h->net[i].start),
				true, h->net[i].usage);
	}
	if (h->ndisk) {
		tl_process(t, "Disk Usage", "CPU", SORT_DISK_USAGE, HOST_DEVICE);
		pid = tl_pid(t, SORT_DISK_USAGE, HOST_DEVICE);
		for (i = 0; i < h->ndisk; i++)
			counter(t, "Disk Usage", pid, hostsys_epoch(h, h->disk[i].start),
				false, h->disk[i].usage);
	}
	return err;
}
