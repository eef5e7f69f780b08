// SPDX-License-Identifier: MIT
/*
 * python_call_site: per line of the task's Python code (the innermost
 * frame of its calls' stacks), what it made the runtime do: its calls,
 * launches, copies and syncs, their host time, and the device tasks and
 * device time that followed from them.  No tool we know writes it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/growarr.h"
#include "summary.h"
#include "summary_csv.h"

struct site {
	uint32_t text;		/* "file(line): func", in profdata.py.text */
	uint64_t calls, launches, copies, syncs, tasks;
	uint64_t host_ns, device_ns;
};

struct sites {
	struct idmap at;	/* text -> v */
	struct site *v;
	size_t n, cap;
};

enum call_kind { KIND_OTHER, KIND_LAUNCH, KIND_COPY, KIND_SYNC };

/* What a user-facing call is, by its name (ACL, CUDA runtime, HCCL). */
static enum call_kind kind_of(const struct api_desc *d)
{
	if (!d || (d->layer != MSPROF_LAYER_ACL && d->layer != MSPROF_LAYER_HCCL &&
		   d->layer != MSPROF_LAYER_CUDA_RUNTIME))
		return KIND_OTHER;
	if (strstr(d->name, "Memcpy") || strstr(d->name, "Memset"))
		return KIND_COPY;
	if (strstr(d->name, "Synchronize"))
		return KIND_SYNC;
	if (strstr(d->name, "Launch") || strstr(d->name, "Execute") ||
	    d->layer == MSPROF_LAYER_HCCL)
		return KIND_LAUNCH;
	return KIND_OTHER;
}

/* The site of a chain's innermost frame shown; NULL: none, or no memory. */
static struct site *site_of(struct sites *s, const struct pystacks *py,
			    uint32_t chain, int *err)
{
	struct site *st;
	uint32_t text, i;

	*err = 0;
	if (!chain || !pystacks_frame(py, chain, 0, &text))
		return NULL;
	if (!idmap_get(&s->at, text, &i))
		return &s->v[i];
	st = growarr_push((void **)&s->v, &s->n, &s->cap, sizeof(*st));
	if (!st) {
		*err = -ENOMEM;
		return NULL;
	}
	*st = (struct site){ .text = text };
	*err = idmap_put(&s->at, text, (uint32_t)(s->n - 1));
	return *err ? NULL : st;
}

static int add_calls(struct sites *s, const struct profdata *p)
{
	struct site *st;
	size_t i;
	int err;

	for (i = 0; i < p->ncalls; i++) {
		const struct profcall *c = &p->calls[i];

		st = site_of(s, &p->py, c->stack, &err);
		if (!st) {
			if (err)
				return err;
			continue;
		}
		/* A nested call's time is its outer call's already. */
		if (!c->depth) {
			st->calls++;
			st->host_ns += c->end_ns > c->start_ns ? c->end_ns - c->start_ns : 0;
		}
		switch (kind_of(profdata_desc(p, c->api_id))) {
		case KIND_LAUNCH: st->launches++; break;
		case KIND_COPY: st->copies++; break;
		case KIND_SYNC: st->syncs++; break;
		default: break;
		}
	}
	return 0;
}

static int add_tasks(struct sites *s, const struct profdata *p)
{
	struct site *st;
	size_t i;
	int err;

	for (i = 0; i < p->ntasks; i++) {
		const struct devtask *t = &p->tasks[i];
		const struct profcall *c = profdata_call(p, t->conn);

		st = c ? site_of(s, &p->py, c->stack, &err) : NULL;
		if (!st) {
			if (c && err)
				return err;
			continue;
		}
		st->tasks++;
		st->device_ns += t->end_ns > t->start_ns ? t->end_ns - t->start_ns : 0;
	}
	return 0;
}

/* The costliest first: device time, then host time, then the site's name. */
static int by_cost(const void *a, const void *b, void *arg)
{
	const struct site *x = a, *y = b;
	const struct pystacks *py = arg;

	if (x->device_ns != y->device_ns)
		return x->device_ns > y->device_ns ? -1 : 1;
	if (x->host_ns != y->host_ns)
		return x->host_ns > y->host_ns ? -1 : 1;
	return strcmp(strtab_str(&py->text, x->text), strtab_str(&py->text, y->text));
}

bool summary_has_python(const struct profdata *p)
{
	return p->py.nchains > 1;
}

int summary_python_call_sites(FILE *fp, const struct profdata *p)
{
	struct sites s = { 0 };
	size_t i;
	int err = add_calls(&s, p) ?: add_tasks(&s, p);

	if (!err) {
		if (s.n)
			qsort_r(s.v, s.n, sizeof(*s.v), by_cost, (void *)&p->py);
		fputs("Call Site,Calls,Launches,Copies,Syncs,Host API Time(us),"
		      "Device Tasks,Device Time(us)\n", fp);
		for (i = 0; i < s.n; i++) {
			csv_text(fp, strtab_str(&p->py.text, s.v[i].text));
			csv_next_u64(fp, s.v[i].calls);
			csv_next_u64(fp, s.v[i].launches);
			csv_next_u64(fp, s.v[i].copies);
			csv_next_u64(fp, s.v[i].syncs);
			csv_next_us(fp, s.v[i].host_ns);
			csv_next_u64(fp, s.v[i].tasks);
			csv_next_us(fp, s.v[i].device_ns);
			fputc('\n', fp);
		}
		err = ferror(fp) ? -EIO : 0;
	}
	free(s.v);
	idmap_free(&s.at);
	return err;
}
