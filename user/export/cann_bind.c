// SPDX-License-Identifier: MIT
/*
 * The compact and additional records that tell more of a task (§2.6-2.8,
 * §4.1): each binds to the tasks its thread submitted from its time on,
 * node_basic_info and tensor_info to every task of the same node launch,
 * memcpy_info and hccl_info to the one task next.  Also the header check
 * and the task lookup every binder (this file's and cann_api.c's) shares,
 * below cann_host.c, which drives them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cann.h"
#include "cann_host.h"

/* The header checks every host record takes; false: a fault, skipped. */
bool cann_head_ok(const struct cann_rec_head *h, const struct cann_src *s)
{
	char what[64];

	if (h->magic != CANN_MAGIC) {
		snprintf(what, sizeof(what), "wrong magic 0x%04x", h->magic);
		cann_fault(s, what);
		return false;
	}
	if (!cann_level_known(h->level)) {
		snprintf(what, sizeof(what), "unknown level %u", h->level);
		cann_fault(s, what);
		return false;
	}
	return true;
}

/* Where in h->order the thread's first task at or after ns is; n: none. */
size_t cann_first_task(const struct host_load *h, uint32_t tid, uint64_t ns)
{
	const struct devtask *v = h->p->tasks;
	size_t lo = 0, hi = h->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct devtask *t = &v[h->order[mid]];

		if (t->host_tid < tid || (t->host_tid == tid && t->submit_ns < ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->n && v[h->order[lo]].host_tid == tid ? lo : h->n;
}

typedef int (*edit_fn)(struct profdata *p, struct devop *op, const void *rec,
		       const struct cann_src *s);

/* Applies edit to the op of each task of the node launch at ts. */
static int edit_node(struct host_load *h, uint32_t tid, uint64_t ts,
		     edit_fn edit, const void *rec, const struct cann_src *s)
{
	struct profdata *p = h->p;
	size_t at = cann_first_task(h, tid, cann_host_ns(h->c, ts));
	uint32_t node;
	int err = 0;

	if (at == h->n || !h->node[at])
		return 0;
	node = h->node[at];
	for (; !err && at < h->n && h->node[at] == node; at++) {
		struct devtask *t = &p->tasks[h->order[at]];
		struct devop op = p->ops[t->op];

		err = edit(p, &op, rec, s) ?: profdata_op(p, &op, &t->op);
	}
	return err;
}

static enum devtask_type type_of_ge(uint32_t ge, enum devtask_type was)
{
	switch (ge) {
	case CANN_GE_AI_CORE: return DT_AI_CORE;
	case CANN_GE_AI_CPU: return DT_AI_CPU;
	case CANN_GE_AI_VECTOR_CORE: return DT_AI_VECTOR_CORE;
	case CANN_GE_MIX_AIC: return DT_MIX_AIC;
	case CANN_GE_MIX_AIV: return DT_MIX_AIV;
	case CANN_GE_HCCL: return DT_HCCL;
	}
	return was;
}

static int edit_basic(struct profdata *p, struct devop *op, const void *rec,
		      const struct cann_src *s)
{
	struct cann_node_basic_info r;
	const char *type;

	memcpy(&r, rec, sizeof(r));
	type = r.op_type ? cann_hash_str(p, r.op_type) : NULL;
	if (type && strtab_intern(&p->names, type, strlen(type), &op->op_type))
		return -ENOMEM;
	op->ge_type = r.task_type < DEVOP_NO_GE ? (uint8_t)r.task_type : DEVOP_NO_GE;
	op->type = (uint8_t)type_of_ge(r.task_type, op->type);
	op->block_dim = r.block_num & 0xffff;
	op->mix_ratio = (uint16_t)(r.block_num >> 16);
	op->hf32 = r.op_flag != 0;
	/* The file says it (§2.6): aging, dynamic; unaging, static. */
	op->state = s->aging ? OPSTATE_DYNAMIC : OPSTATE_STATIC;
	return 0;
}

static int on_basic(const void *rec, const struct cann_src *s, void *ctx)
{
	const struct cann_rec_head *hd = rec;
	struct cann_rec_head head;

	memcpy(&head, hd, sizeof(head));
	if (!cann_head_ok(&head, s) || head.level != CANN_LEVEL_NODE ||
	    head.type != CANN_NODE_BASIC_INFO)
		return 0;
	return edit_node(ctx, head.thread_id, head.timestamp, edit_basic, rec, s);
}

static const char *data_type_name(uint32_t v)
{
	static const char *const names[] = {
		[0] = "FLOAT", [1] = "FLOAT16", [2] = "INT8", [3] = "INT32",
		[4] = "UINT8", [6] = "INT16", [7] = "UINT16", [8] = "UINT32",
		[9] = "INT64", [10] = "UINT64", [11] = "DOUBLE", [12] = "BOOL",
		[27] = "BF16",
	};

	return v < sizeof(names) / sizeof(names[0]) ? names[v] : NULL;
}

static const char *format_name(uint32_t v)
{
	static const char *const names[] = {
		[0] = "NCHW", [1] = "NHWC", [2] = "ND", [3] = "NC1HWC0",
		[4] = "FRACTAL_Z", [29] = "FRACTAL_NZ",
	};

	return v < sizeof(names) / sizeof(names[0]) ? names[v] : NULL;
}

/*
 * One cell: the tensors of one kind, ';' between, each as what says; how
 * many there were.  A shape cell is wrapped in double quotes, as msprof's
 * analysis keeps it (Python and C++ alike, in its CSV and its db), and as
 * msprof-analyze's AI Core checker reads it: it drops the first and last
 * character before splitting.
 */
static uint32_t render(char *buf, size_t len, const struct cann_tensor_info *r,
		       uint32_t kind, int what)
{
	size_t at = 0;
	uint32_t i, d, n = r->count < CANN_TENSORS ? r->count : CANN_TENSORS, found = 0;
	const char *name;

	buf[0] = '\0';
	if (what == 0)
		at += (size_t)snprintf(buf, len, "\"");
	for (i = 0; i < n && at < len; i++) {
		const struct cann_tensor *t = &r->tensor[i];

		if (t->tensor_type != kind)
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s", found++ ? ";" : "");
		if (what == 0) {
			for (d = 0; d < CANN_SHAPE_DIMS && t->shape[d] && at < len; d++)
				at += (size_t)snprintf(buf + at, len - at, "%s%u",
						       d ? "," : "", t->shape[d]);
			continue;
		}
		name = what == 1 ? data_type_name(t->data_type) : format_name(t->format);
		if (at < len)
			at += name ? (size_t)snprintf(buf + at, len - at, "%s", name) :
			      (size_t)snprintf(buf + at, len - at, "%u",
					       what == 1 ? t->data_type : t->format);
	}
	if (what == 0 && at < len)
		snprintf(buf + at, len - at, "\"");
	return found;
}

static int edit_tensor(struct profdata *p, struct devop *op, const void *rec,
		       const struct cann_src *s)
{
	struct cann_tensor_info r;
	char cell[512];
	int i, err = 0;

	(void)s;
	memcpy(&r, rec, sizeof(r));
	for (i = 0; i < SHAPES && !err; i++) {
		op->shapes[i] = NO_STR;	/* no tensor of the kind: N/A */
		if (render(cell, sizeof(cell), &r, i < SHAPE_OUT ? 0 : 1, i % 3))
			err = strtab_intern(&p->names, cell, strlen(cell), &op->shapes[i]);
	}
	return err;
}

static int on_tensor(const void *rec, const struct cann_src *s, void *ctx)
{
	struct cann_rec_head head;

	memcpy(&head, rec, sizeof(head));
	if (!cann_head_ok(&head, s) || head.level != CANN_LEVEL_NODE ||
	    head.type != CANN_NODE_TENSOR_INFO)
		return 0;
	return edit_node(ctx, head.thread_id, head.timestamp, edit_tensor, rec, s);
}

/*
 * The task a memcpy_info or hccl_info tells of: the next on its thread;
 * its node launch's number in *node, if asked.
 */
static const struct devtask *next_task(struct host_load *h,
				       const struct cann_rec_head *head,
				       uint32_t *node)
{
	size_t at = cann_first_task(h, head->thread_id,
				    cann_host_ns(h->c, head->timestamp));

	if (at >= h->n)
		return NULL;
	if (node)
		*node = h->node[at];
	return &h->p->tasks[h->order[at]];
}

static int on_memcpy(const void *rec, const struct cann_src *s, void *ctx)
{
	struct host_load *h = ctx;
	struct profdata *p = h->p;
	struct cann_memcpy_info r;
	const struct devtask *t;

	memcpy(&r, rec, sizeof(r));
	if (!cann_head_ok(&r.head, s) || r.head.level != CANN_LEVEL_RUNTIME ||
	    r.head.type != CANN_RT_MEMCPY_INFO)
		return 0;
	t = next_task(h, &r.head, NULL);
	if (!t || p->ops[t->op].type != DT_MEMCPY_ASYNC || p->ncopies >= h->n)
		return 0;
	p->copies[p->ncopies++] = (struct task_copy){
		.key = devtask_key(t), .bytes = r.data_size, .kind = r.direction,
	};
	return 0;
}

static int hccl_names(struct profdata *p, const struct cann_hccl_info *r,
		      struct task_hccl *x)
{
	const char *item = cann_hash_str(p, r->item_id);
	const char *group = cann_hash_str(p, r->group_name);
	char num[24];
	int err;

	if (!item) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)r->item_id);
		item = num;
	}
	err = strtab_intern(&p->names, item, strlen(item), &x->name);
	if (!group) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)r->group_name);
		group = num;
	}
	return err ?: strtab_intern(&p->names, group, strlen(group), &x->group);
}

static int on_hccl(const void *rec, const struct cann_src *s, void *ctx)
{
	struct host_load *h = ctx;
	struct profdata *p = h->p;
	struct cann_hccl_info r;
	const struct devtask *t;
	struct task_hccl *x;
	uint32_t node;

	memcpy(&r, rec, sizeof(r));
	/* Its type number is a third party's (§9): the level says it. */
	if (!cann_head_ok(&r.head, s) || r.head.level != CANN_LEVEL_HCCL)
		return 0;
	t = next_task(h, &r.head, &node);
	if (!t || p->nhccls >= h->n)
		return 0;
	x = &p->hccls[p->nhccls];
	*x = (struct task_hccl){
		.key = devtask_key(t), .bytes = r.data_size, .notify_id = r.notify_id,
		.duration_est = r.duration_estimated, .plane = r.plane_id,
		.local_rank = r.local_rank, .remote_rank = r.remote_rank,
		.rank_size = r.rank_size, .data_type = r.data_type,
		.link_type = r.link_type, .transport_type = r.transport_type,
		.group_id = r.group_name, .node = node,
	};
	p->nhccls++;
	return hccl_names(p, &r, x);
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int cann_bind_records(struct host_load *h)
{
	struct profdata *p = h->p;
	size_t n = h->n ? h->n : 1;
	int err;

	err = cann_each_rec(p, "host/data", "compact.node_basic_info", true,
			    CANN_COMPACT_SIZE, false, on_basic, h) ?:
	      cann_each_rec(p, "host/data", "additional.tensor_info", true,
			    CANN_ADDITIONAL_SIZE, false, on_tensor, h);
	/* Untouched beyond what is used: the memory is taken as written. */
	p->copies = err ? NULL : malloc(n * sizeof(*p->copies));
	p->hccls = err ? NULL : malloc(n * sizeof(*p->hccls));
	if (!err && (!p->copies || !p->hccls))
		err = -ENOMEM;
	err = err ?: cann_each_rec(p, "host/data", "compact.memcpy_info", true,
				   CANN_COMPACT_SIZE, false, on_memcpy, h) ?:
	      cann_each_rec(p, "host/data", "additional.hccl_info", true,
			    CANN_ADDITIONAL_SIZE, false, on_hccl, h);
	if (err)
		return err;
	if (p->ncopies)
		qsort(p->copies, p->ncopies, sizeof(*p->copies), by_key);
	if (p->nhccls)
		qsort(p->hccls, p->nhccls, sizeof(*p->hccls), by_key);
	return 0;
}
