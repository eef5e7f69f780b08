// SPDX-License-Identifier: MIT
/*
 * The OS runtime calls' summaries (--host-sys=osrt): os_runtime_statistic
 * as msprof's Python analysis writes it from the window's text files (its
 * floats printed as Python prints them), and osrt_statistic, ours, from
 * our records: every syscall and pthread call per name and thread, exact
 * to the ns.
 */
#include <errno.h>

#include "msprof/osrt.h"
#include "osrt.h"
#include "osrt_call.h"
#include "pyfloat.h"
#include "summary.h"
#include "summary_csv.h"

bool summary_has_osrt(const struct profdata *p)
{
	return p->osrt && p->osrt->nrows;
}

bool summary_has_osrt_calls(const struct profdata *p)
{
	return p->osrt && p->osrt->nstats;
}

static void next_pyfloat(FILE *fp, double v)
{
	char buf[PYFLOAT_MAX];

	fputc(',', fp);
	fwrite(buf, 1, pyfloat_repr(buf, v), fp);
}

int summary_os_runtime_statistic(FILE *fp, const struct profdata *p)
{
	const struct osrt_set *s = p->osrt;
	size_t i;

	fputs("Device_id,Process ID,Thread ID,Name,Time(%),Time(us),Count,"
	      "Avg(us),Max(us),Min(us)\n", fp);
	for (i = 0; s && i < s->nrows; i++) {
		const struct osrt_msprof_row *r = &s->rows[i];

		fputs("host", fp);
		csv_next_u64(fp, profmeta_task_pid(&p->meta));
		if (r->tid_number)
			csv_next_u64(fp, r->tid);
		else
			csv_next_text(fp, strtab_str(&s->names, r->tid_text));
		csv_next_text(fp, strtab_str(&s->names, r->name));
		/* SQLite's share of a total of 0 is NULL: an empty cell. */
		if (s->total != 0)
			next_pyfloat(fp, r->sum / s->total);
		else
			fputc(',', fp);
		next_pyfloat(fp, r->sum / 1000.0);
		csv_next_u64(fp, r->count);
		next_pyfloat(fp, r->sum / (double)r->count / 1000.0);
		next_pyfloat(fp, r->max / 1000.0);
		next_pyfloat(fp, r->min / 1000.0);
		fputc('\n', fp);
	}
	return ferror(fp) ? -EIO : 0;
}

/* What kind of call a row counts. */
static const char *kind_of(const struct profdata *p, const struct osrt_stat *st)
{
	const struct api_desc *d;

	if (st->what == OSRT_SYSCALL)
		return "syscall";
	d = profdata_desc(p, st->id);
	return d && msprof_probe_kind(d->name, MSPROF_LAYER_OSRT) == OSRT_KIND_BLOCKING ?
	       "blocking" : "pthread";
}

int summary_osrt_statistic(FILE *fp, const struct profdata *p)
{
	const struct osrt_set *s = p->osrt;
	unsigned __int128 all = 0;
	char name[32];
	size_t i;

	for (i = 0; s && i < s->nstats; i++)
		all += s->stats[i].sum_ns;
	fputs("Device_id,Process ID,Thread ID,Name,Kind,Number,Time(%),Time(us),"
	      "Count,Avg(us),Max(us),Min(us),Blocked(us)\n", fp);
	for (i = 0; s && i < s->nstats; i++) {
		const struct osrt_stat *st = &s->stats[i];

		fputs("host", fp);
		csv_next_u64(fp, profmeta_task_pid(&p->meta));
		csv_next_u64(fp, st->tid);
		csv_next_text(fp, osrt_call_name(p, st->what, st->id, name, sizeof(name)));
		csv_next_text(fp, kind_of(p, st));
		fputc(',', fp);
		if (st->what == OSRT_SYSCALL && !st->ioctl)
			csv_u64(fp, st->id);
		/* A share in %, to the thousandth. */
		csv_next_milli(fp, all ? csv_div_round((u128)st->sum_ns * 100000, all) : 0);
		csv_next_us(fp, st->sum_ns);
		csv_next_u64(fp, st->count);
		csv_next_us(fp, (uint64_t)csv_div_round(st->sum_ns, st->count));
		csv_next_us(fp, st->max_ns);
		csv_next_us(fp, st->min_ns);
		/* A syscall's own time is its blocking: the cell is a call's. */
		if (st->what == OSRT_PTHREAD)
			csv_next_us(fp, st->blocked_ns);
		else
			fputc(',', fp);
		fputc('\n', fp);
	}
	return ferror(fp) ? -EIO : 0;
}
