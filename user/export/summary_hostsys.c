// SPDX-License-Identifier: MIT
/*
 * The host system CSVs as msprof's Python export writes them: its headers
 * (msprof_export_data_config.py), "host" as the Device_id, numbers as
 * Python prints them (repr of a float, rounded where it rounds), N/A
 * where it has no value.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostsys.h"
#include "pyfloat.h"
#include "summary.h"
#include "summary_csv.h"

static void py_float(FILE *fp, double v)
{
	char buf[PYFLOAT_MAX];

	pyfloat_repr(buf, v);
	fprintf(fp, ",%s", buf);
}

/* Python's round(v, 3). */
static double round3(double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.3f", v);
	return strtod(buf, NULL);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * get_recommend_value: the largest value, and of those above 0 (ascending)
 * the one at ceil((n - 1) * 0.98), over 0.8; false if there is none.
 */
static bool peak_recommend(double *v, size_t n, double *peak, double *rec)
{
	size_t i, pos = 0;
	double at;

	if (!n)
		return false;
	qsort(v, n, sizeof(*v), by_value);
	*peak = v[n - 1];
	for (i = 0; i < n && v[i] <= 0; i++)
		;
	if (i == n) {
		*rec = 0 / 0.8;
		return true;
	}
	at = (double)(n - i - 1) * 0.98;
	pos = (size_t)at + (at > (double)(size_t)at);
	*rec = v[i + pos] / 0.8;
	return true;
}

/* The peak and recommend of n values at stride, or N/A. */
static int put_peak_recommend(FILE *fp, const void *rows, size_t n,
			      size_t stride, size_t off, double scale,
			      bool rounded)
{
	double *v = malloc((n ? n : 1) * sizeof(*v)), peak, rec;
	size_t i;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		memcpy(&v[i], (const char *)rows + i * stride + off, sizeof(double));
	if (peak_recommend(v, n, &peak, &rec)) {
		py_float(fp, rounded ? round3(peak * scale / 100) : peak);
		py_float(fp, rounded ? round3(rec * scale / 100) : rec);
	} else {
		fputs(",N/A,N/A", fp);
	}
	free(v);
	return 0;
}

bool summary_has_host_cpu(const struct profdata *p)
{
	return p->hostsys && p->hostsys->files & HS_CPU;
}

int summary_host_cpu_usage(FILE *fp, const struct profdata *p)
{
	const struct hostsys_data *h = p->hostsys;
	int32_t seen[1024];
	double max[1024];
	size_t i, j, n = 0, used = 0;

	fputs("Device_id,Total Cpu Numbers,Occupied Cpu Numbers,Recommend Cpu Numbers\n", fp);
	for (i = 0; i < h->ncpu; i++) {
		if (h->cpu[i].cpu == HS_CPU_AVG)
			continue;
		for (j = 0; j < n && seen[j] != h->cpu[i].cpu; j++)
			;
		if (j == n && n == sizeof(seen) / sizeof(seen[0]))
			continue;
		if (j == n) {
			seen[n] = h->cpu[i].cpu;
			max[n++] = h->cpu[i].usage;
		} else if (h->cpu[i].usage > max[j]) {
			max[j] = h->cpu[i].usage;
		}
	}
	for (j = 0; j < n; j++)
		used += max[j] > 0;
	fprintf(fp, "host,%ld,%zu,%zu\n", h->cpu_nums, n, used);
	return 0;
}

bool summary_has_host_mem(const struct profdata *p)
{
	return p->hostsys && p->hostsys->files & HS_MEM;
}

int summary_host_mem_usage(FILE *fp, const struct profdata *p)
{
	const struct hostsys_data *h = p->hostsys;
	int err;

	fputs("Device_id,Total Memory(KB),Peak Used Memory(KB),Recommend Memory(KB)\n", fp);
	fprintf(fp, "host,%llu", (unsigned long long)h->mem_total_kb);
	err = put_peak_recommend(fp, h->mem, h->nmem, sizeof(*h->mem),
				 offsetof(struct hs_mem_row, usage),
				 (double)h->mem_total_kb, true);
	fputc('\n', fp);
	return err;
}

bool summary_has_host_network(const struct profdata *p)
{
	return p->hostsys && p->hostsys->files & HS_NET;
}

int summary_host_network_usage(FILE *fp, const struct profdata *p)
{
	const struct hostsys_data *h = p->hostsys;
	double speed = 0;
	bool any = false;
	unsigned int i;
	int err;

	fputs("Device_id,Netcard Speed(KB/s),Peak Used Speed(KB/s),Recommend Speed(KB/s)\nhost", fp);
	for (i = 0; i < h->ncards; i++)
		if (h->card[i].speed != -1) {
			speed += (double)(h->card[i].speed * 125000) / 1024.0;
			any = true;
		}
	/* An int 0 when no card counts, a float otherwise: Python's sum. */
	if (any)
		py_float(fp, speed);
	else
		fputs(",0", fp);
	err = put_peak_recommend(fp, h->net, h->nnet, sizeof(*h->net),
				 offsetof(struct hs_net_row, speed), 1, false);
	fputc('\n', fp);
	return err;
}

bool summary_has_host_disk(const struct profdata *p)
{
	return p->hostsys && p->hostsys->files & HS_DISK;
}

int summary_host_disk_usage(FILE *fp, const struct profdata *p)
{
	const struct hostsys_data *h = p->hostsys;

	fputs("Device_id,Peak Disk Read(KB/s),Recommend Disk Read(KB/s),"
	      "Peak Disk Write(KB/s),Recommend Disk Write(KB/s)\n", fp);
	fputs("host", fp);
	return put_peak_recommend(fp, h->disk, h->ndisk, sizeof(*h->disk),
				  offsetof(struct hs_disk_row, read), 1, false) ?:
	       put_peak_recommend(fp, h->disk, h->ndisk, sizeof(*h->disk),
				  offsetof(struct hs_disk_row, write), 1, false) ?:
	       (fputc('\n', fp), 0);
}

bool summary_has_cpu_usage(const struct profdata *p)
{
	return p->hostsys && p->hostsys->files & HS_SYS_CPU;
}

/* _do_divide: of the total rounded to 3 places, in % to 3 places. */
static double share(double v, double total)
{
	return total ? round3(v / total * 100) : 0;
}

int summary_cpu_usage(FILE *fp, const struct profdata *p)
{
	const double *s = p->hostsys->sys_cpu;
	double total = 0;
	unsigned int i;
	/* user, sys, iowait, irq, softirq, idle: /proc/stat's 0, 2, 4, 5, 6, 3 */
	static const unsigned int col[6] = { 0, 2, 4, 5, 6, 3 };

	fputs("Device_id,Cpu Type,User(%),Sys(%),IoWait(%),Irq(%),Soft(%),Idle(%)\n", fp);
	for (i = 0; i < 10; i++)
		total += s[i];
	if (!total)
		return 0;
	total = round3(total);
	fputs("host,host", fp);
	for (i = 0; i < 6; i++)
		py_float(fp, share(s[col[i]], total));
	fputc('\n', fp);
	return 0;
}

bool summary_has_process_cpu(const struct profdata *p)
{
	return p->hostsys && p->hostsys->files & HS_PID_CPU;
}

struct ranked {
	const struct hs_proc *p;
	double v;
};

static int by_rank(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	/* Equal ones come out of SQLite's sorter by pid, descending. */
	return (x->p->pid < y->p->pid) - (x->p->pid > y->p->pid);
}

/* Processes by v (CPU %, or the three memory means) descending. */
static int ranked_procs(const struct hostsys_data *h, bool cpu,
			struct ranked **out, size_t *n)
{
	struct ranked *r = malloc((h->nprocs ? h->nprocs : 1) * sizeof(*r));
	size_t i;

	if (!r)
		return -ENOMEM;
	*n = 0;
	for (i = 0; i < h->nprocs; i++) {
		const struct hs_proc *p = &h->procs[i];

		if (cpu && p->cpu_n)
			r[(*n)++] = (struct ranked){ p, 100 * p->cpu_sum / (double)p->cpu_n };
		else if (!cpu && p->mem_n)
			r[(*n)++] = (struct ranked){
				p, (double)(p->size / (int64_t)p->mem_n +
					    p->resident / (int64_t)p->mem_n +
					    p->shared / (int64_t)p->mem_n) };
	}
	qsort(r, *n, sizeof(*r), by_rank);
	*out = r;
	return 0;
}

int summary_process_cpu_usage(FILE *fp, const struct profdata *p)
{
	struct ranked *r;
	size_t i, n;
	int err = ranked_procs(p->hostsys, true, &r, &n);

	if (err)
		return err;
	fputs("Device_id,PID,Name,CPU(%)\n", fp);
	for (i = 0; i < n; i++) {
		fprintf(fp, "host,%d", r[i].p->pid);
		csv_next_text(fp, r[i].p->name);
		py_float(fp, round3(r[i].v));
		fputc('\n', fp);
	}
	free(r);
	return 0;
}

bool summary_has_process_mem(const struct profdata *p)
{
	return p->hostsys && p->hostsys->files & HS_PID_MEM;
}

int summary_process_mem(FILE *fp, const struct profdata *p)
{
	struct ranked *r;
	size_t i, n;
	int err = ranked_procs(p->hostsys, false, &r, &n);

	if (err)
		return err;
	fputs("Device_id,PID,Name,Size(pages),Resident(pages),Shared(pages)\n", fp);
	for (i = 0; i < n; i++) {
		const struct hs_proc *pr = r[i].p;
		int64_t m = (int64_t)pr->mem_n;

		fprintf(fp, "host,%d", pr->pid);
		csv_next_text(fp, pr->mem_name);
		fprintf(fp, ",%lld,%lld,%lld\n", (long long)(pr->size / m),
			(long long)(pr->resident / m), (long long)(pr->shared / m));
	}
	free(r);
	return 0;
}

bool summary_has_sys_mem(const struct profdata *p)
{
	return p->hostsys && p->hostsys->files & HS_SYS_MEM;
}

int summary_sys_mem(FILE *fp, const struct profdata *p)
{
	static const char *const head[9] = {
		"Memory Total", "Memory Free", "Buffers", "Cached", "Share Memory",
		"Commit Limit", "Committed AS", "Huge Pages Total(pages)",
		"Huge Pages Free(pages)",
	};
	const struct hostsys_data *h = p->hostsys;
	unsigned int i;

	fputs("Device_id", fp);
	for (i = 0; i < 9; i++)
		fprintf(fp, i < 7 ? ",%s(%s)" : ",%s", head[i], h->sys_mem_unit);
	fputc('\n', fp);
	if (!h->sys_mem_n)
		return 0;
	fputs("host", fp);
	for (i = 0; i < 9; i++)
		fprintf(fp, ",%lld", (long long)(h->sys_mem[i] / (int64_t)h->sys_mem_n));
	fputc('\n', fp);
	return 0;
}
