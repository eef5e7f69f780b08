// SPDX-License-Identifier: MIT
/*
 * The runtime's api_event records (§2.1, §2.4): read at load for the node
 * launches that name their tasks' ops, and walked again by each writer;
 * never held, since a window has millions.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cann.h"
#include "cann_host.h"

/* An acl type's group must be an AclApiTag (§2.3). */
static bool acl_group_known(uint32_t type)
{
	uint32_t g = type >> 16;

	return g >= CANN_ACL_OP && g <= CANN_ACL_ATB && g != 8;
}

/*
 * The API record at s as a call; false when it is none: an event, begin 0
 * (dropped, as the analysis drops it) or a fault (counted).
 */
static bool decode_call(const struct profdata *p, const void *rec,
			const struct cann_src *s, struct cann_call *c)
{
	struct cann_api a;
	char what[64];

	memcpy(&a, rec, sizeof(a));
	if (!cann_head_ok((const struct cann_rec_head *)&a, s))
		return false;
	if (a.end == CANN_EVENT_END || !a.begin)
		return false;
	if (a.level == CANN_LEVEL_ACL && !acl_group_known(a.type)) {
		snprintf(what, sizeof(what), "acl type 0x%x of no known group", a.type);
		cann_fault(s, what);
		return false;
	}
	if (a.end < a.begin) {
		cann_fault(s, "an API that ends before it begins");
		return false;
	}
	*c = (struct cann_call){
		.begin_ns = cann_host_ns(p->cann, a.begin),
		.end_ns = cann_host_ns(p->cann, a.end),
		.tid = a.thread_id, .level = a.level, .type = a.type,
		.type_name = cann_type_str(p, a.level, a.type),
		.item = a.item_id ? cann_hash_str(p, a.item_id) : NULL,
		.item_id = a.item_id,
	};
	return true;
}

struct load_walk {
	struct host_load *h;
	uint64_t seq;
};

/* Its op's name onto each task a node launch submitted (§4.1). */
static int bind_launch(struct host_load *h, const struct cann_call *c,
		       uint32_t seq)
{
	struct profdata *p = h->p;
	size_t at = cann_first_task(h, c->tid, c->begin_ns);
	uint32_t name;
	int err;

	if (at == h->n)
		return 0;
	err = c->item ? strtab_intern(&p->names, c->item, strlen(c->item), &name) : 0;
	for (; !err && at < h->n; at++) {
		struct devtask *t = &p->tasks[h->order[at]];
		struct devop op = p->ops[t->op];

		if (t->host_tid != c->tid || t->submit_ns > c->end_ns)
			break;
		h->node[at] = seq;
		if (!c->item)
			continue;
		op.name = name;
		err = profdata_op(p, &op, &t->op);
	}
	return err;
}

static int load_call(const void *rec, const struct cann_src *s, void *ctx)
{
	struct load_walk *w = ctx;
	struct cann_call c;

	if (!decode_call(w->h->p, rec, s, &c))
		return 0;
	w->seq++;
	w->h->c->has_api = true;
	if (c.end_ns > w->h->c->last_ns)
		w->h->c->last_ns = c.end_ns;
	if (c.level == CANN_LEVEL_NODE && c.type == CANN_NODE_LAUNCH)
		return bind_launch(w->h, &c, (uint32_t)w->seq);
	return 0;
}

int cann_bind_apis(struct host_load *h)
{
	struct load_walk w = { .h = h };
	int err = cann_each_rec(h->p, "host/data", "api_event.data", true,
				sizeof(struct cann_api), false, load_call, &w);

	h->c->ncalls = w.seq;
	return err;
}

struct call_walk {
	const struct profdata *p;
	cann_call_fn fn;
	void *ctx;
	uint64_t seq;
};

/*
 * Our call that stands for the runtime's, if eBPF recorded it too: a call
 * on its thread of the same name whose span meets it; its connection id,
 * 0 if none.  Calls are by (thread, start): those that start before the
 * runtime's call ends are looked at, the latest first, back to the first
 * outermost one.
 */
static uint64_t seen_by_ebpf(const struct profdata *p, const struct cann_call *c)
{
	size_t lo = 0, hi = p->ncalls;

	if (!c->type_name || !p->ncalls)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct profcall *k = &p->calls[mid];

		if (k->ns_tid < c->tid || (k->ns_tid == c->tid && k->start_ns <= c->end_ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		const struct profcall *k = &p->calls[lo];
		const struct api_desc *d;

		if (k->ns_tid != c->tid)
			break;
		d = profdata_desc(p, k->api_id);
		if (k->end_ns >= c->begin_ns && d && !strcmp(d->name, c->type_name))
			return lo + 1;
		if (!k->depth && k->end_ns < c->begin_ns)
			break;
	}
	return 0;
}

static int walk_call(const void *rec, const struct cann_src *s, void *ctx)
{
	struct call_walk *w = ctx;
	struct cann_call c;

	if (!decode_call(w->p, rec, s, &c))
		return 0;
	/* After ours: one namespace of connection ids in every output. */
	c.conn = w->p->ncalls + ++w->seq;
	if (c.level == CANN_LEVEL_ACL || c.level == CANN_LEVEL_RUNTIME ||
	    c.level == CANN_LEVEL_HCCL)
		c.ours = seen_by_ebpf(w->p, &c);
	return w->fn(&c, w->ctx);
}

const char *cann_call_name(const struct cann_call *c, char num[CANN_NUM_LEN])
{
	snprintf(num, CANN_NUM_LEN, "%u", c->type);
	if (c->level == CANN_LEVEL_HCCL && c->item)
		return c->item;
	return c->type_name ? c->type_name : num;
}

int cann_each_call(const struct profdata *p, cann_call_fn fn, void *ctx)
{
	struct call_walk w = { .p = p, .fn = fn, .ctx = ctx };

	if (!p->cann || !p->cann->has_api)
		return 0;
	/* Quiet: nothing is written through p. */
	return cann_each_rec((struct profdata *)p, "host/data", "api_event.data",
			     true, sizeof(struct cann_api), true, walk_call, &w);
}
