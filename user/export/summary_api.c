// SPDX-License-Identifier: MIT
/* api_statistic: the host API calls of a window, per API name and level. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "naming.h"
#include "summary.h"
#include "summary_csv.h"

/* What is kept of one API's calls while walking them: no per-call storage. */
struct api_agg {
	uint64_t count;
	uint64_t sum;		/* ns */
	uint64_t min;
	uint64_t max;
	u128 sumsq;		/* ns² */
};

/* One row: an API as named and levelled; ids of the same name merge. */
struct api_row {
	const char *name;
	const struct layer_naming *level;
	struct api_agg agg;
};

/* Ids past the table and ids never named share the last slot. */
#define UNNAMED_SLOT MSPROF_MAX_APIS

struct api_walk {
	const struct profdata *p;
	struct api_agg *agg;	/* by API id */
};

static int add_call(const struct msprof_api_event *e, uint64_t conn, void *ctx)
{
	const struct api_walk *w = ctx;
	const struct profmeta *m = &w->p->meta;
	struct api_agg *a = &w->agg[e->api_id < MSPROF_MAX_APIS ? e->api_id : UNNAMED_SLOT];
	/* On the epoch scale, as msprof takes a call's end and start, and as the timeline's dur is. */
	uint64_t d = e->end_ns > e->start_ns ?
		     profmeta_epoch_ns(m, e->end_ns) - profmeta_epoch_ns(m, e->start_ns) : 0;

	(void)conn;
	if (!a->count || d < a->min)
		a->min = d;
	if (d > a->max)
		a->max = d;
	a->count++;
	a->sum += d;
	a->sumsq += (u128)d * d;
	return 0;
}

static void merge(struct api_agg *to, const struct api_agg *from)
{
	if (!to->count || from->min < to->min)
		to->min = from->min;
	if (from->max > to->max)
		to->max = from->max;
	to->count += from->count;
	to->sum += from->sum;
	to->sumsq += from->sumsq;
}

/* msprof's order: by API name, then by level number. */
static int by_name_level(const void *a, const void *b)
{
	const struct api_row *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->level->level_id != y->level->level_id)
		return x->level->level_id < y->level->level_id ? -1 : 1;
	return strcmp(x->level->level, y->level->level);
}

static void write_row(FILE *fp, const struct api_row *r)
{
	const struct api_agg *a = &r->agg;

	fputs("host,", fp);
	csv_text(fp, r->level->level);
	csv_next_text(fp, r->name);
	csv_next_milli(fp, a->sum);
	csv_next_u64(fp, a->count);
	csv_next_milli(fp, csv_div_round(a->sum, a->count));
	csv_next_milli(fp, a->min);
	csv_next_milli(fp, a->max);
	csv_next_milli(fp, csv_variance_milli(a->count, a->sum, a->sumsq));
	fputc('\n', fp);
}

int summary_api_statistic(FILE *fp, const struct profdata *p)
{
	struct api_agg *agg = calloc(UNNAMED_SLOT + 1, sizeof(*agg));
	struct api_row *rows = calloc(UNNAMED_SLOT + 1, sizeof(*rows));
	struct api_walk w = { .p = p, .agg = agg };
	size_t i, n = 0, out;
	int err = -ENOMEM;

	if (!agg || !rows)
		goto out;
	err = profdata_each_host(p, add_call, NULL, &w);
	if (err)
		goto out;
	for (i = 0; i <= UNNAMED_SLOT; i++) {
		const struct api_desc *d = profdata_desc(p, (uint32_t)i);

		if (!agg[i].count)
			continue;
		rows[n].name = d ? d->name : "unknown_api";
		rows[n].level = naming_layer(d ? d->layer : MSPROF_LAYER_MAX);
		rows[n++].agg = agg[i];
	}
	qsort(rows, n, sizeof(*rows), by_name_level);
	fputs("Device_id,Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\n", fp);
	for (i = 0; i < n; i = out) {
		for (out = i + 1; out < n && !by_name_level(&rows[i], &rows[out]); out++)
			merge(&rows[i].agg, &rows[out].agg);
		write_row(fp, &rows[i]);
	}
	err = ferror(fp) ? -EIO : 0;
out:
	free(agg);
	free(rows);
	return err;
}
