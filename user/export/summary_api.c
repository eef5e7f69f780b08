// SPDX-License-Identifier: MIT
/* api_statistic: the host API calls of a window, per API name and level. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cann.h"
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
	/* The runtime's calls eBPF did not record, by level << 32 | type. */
	struct cann_dict by_type;
	struct cann_dict by_item;	/* communication calls, by task name */
	struct api_row *cann;
	uint32_t ncann, cap_cann;
};

/* On the epoch scale, as msprof takes a call's end and start, and as the timeline's dur is. */
static void add_span(struct api_agg *a, const struct profmeta *m,
		     uint64_t start_ns, uint64_t end_ns)
{
	uint64_t d = end_ns > start_ns ?
		     profmeta_epoch_ns(m, end_ns) - profmeta_epoch_ns(m, start_ns) : 0;

	if (!a->count || d < a->min)
		a->min = d;
	if (d > a->max)
		a->max = d;
	a->count++;
	a->sum += d;
	a->sumsq += (u128)d * d;
}

static int add_call(const struct msprof_api_event *e, uint64_t conn, void *ctx)
{
	const struct api_walk *w = ctx;

	(void)conn;
	add_span(&w->agg[e->api_id < MSPROF_MAX_APIS ? e->api_id : UNNAMED_SLOT],
		 &w->p->meta, e->start_ns, e->end_ns);
	return 0;
}

/* msprof's level of a runtime's call, and its level number for the order. */
static const struct layer_naming *cann_naming(uint16_t level)
{
	static struct layer_naming names[] = {
		{ "", "acl", CANN_LEVEL_ACL }, { "", "model", CANN_LEVEL_MODEL },
		{ "", "node", CANN_LEVEL_NODE }, { "", "communication", CANN_LEVEL_HCCL },
		{ "", "runtime", CANN_LEVEL_RUNTIME },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].level_id == level)
			return &names[i];
	return naming_layer(MSPROF_LAYER_MAX);
}

static int add_cann_call(const struct cann_call *c, void *ctx)
{
	struct api_walk *w = ctx;
	/* A communication call is its task's: msprof's row is by its name. */
	bool by_item = c->level == CANN_LEVEL_HCCL && c->item;
	struct cann_dict *d = by_item ? &w->by_item : &w->by_type;
	uint64_t key = by_item ? c->item_id : (uint64_t)c->level << 32 | c->type;
	uint32_t at = cann_dict_get(d, key);
	struct api_row *r;

	if (c->ours)
		return 0;	/* counted as ours */
	if (!at) {
		if (w->ncann == w->cap_cann) {
			uint32_t cap = w->cap_cann ? 2 * w->cap_cann : 16;
			struct api_row *v = realloc(w->cann, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			w->cann = v;
			w->cap_cann = cap;
		}
		w->cann[w->ncann] = (struct api_row){
			.name = by_item ? c->item :
				c->type_name ? c->type_name : "unknown_api",
			.level = cann_naming(c->level),
		};
		if (cann_dict_put(d, key, w->ncann++))
			return -ENOMEM;
		at = w->ncann;
	}
	r = &w->cann[at - 1];
	add_span(&r->agg, &w->p->meta, c->begin_ns, c->end_ns);
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
	struct api_row *rows = NULL;
	struct api_walk w = { .p = p, .agg = agg };
	size_t i, n = 0, out;
	int err = -ENOMEM;

	if (!agg)
		goto out;
	err = profdata_each_host(p, add_call, NULL, &w) ?:
	      cann_each_call(p, add_cann_call, &w);
	if (err)
		goto out;
	err = -ENOMEM;
	rows = calloc(UNNAMED_SLOT + 1 + w.ncann, sizeof(*rows));
	if (!rows)
		goto out;
	for (i = 0; i < w.ncann; i++)
		rows[n++] = w.cann[i];
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
	free(w.cann);
	cann_dict_free(&w.by_type);
	cann_dict_free(&w.by_item);
	return err;
}
