// SPDX-License-Identifier: MIT
/* A window's collective ops, from its HCCL tasks and their Hccl* calls. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "msprof/probe_packs.h"
#include "naming.h"
#include "overlap.h"

static const struct {
	const char *name;
	unsigned int size;
} data_types[] = {
	/* HcclDataType's values, which ENUM_HCCL_DATA_TYPE's ids are. */
	{ "INT8", 1 }, { "INT16", 2 }, { "INT32", 4 }, { "FP16", 2 },
	{ "FP32", 4 }, { "INT64", 8 }, { "UINT64", 8 }, { "UINT8", 1 },
	{ "UINT16", 2 }, { "UINT32", 4 }, { "FP64", 8 }, { "BFP16", 2 },
	{ "INT128", 16 },
};

#define NTYPES (sizeof(data_types) / sizeof(data_types[0]))

const char *comm_data_type_name(uint32_t data_type)
{
	return data_type < NTYPES ? data_types[data_type].name : "N/A";
}

unsigned int comm_data_type_size(uint32_t data_type)
{
	return data_type < NTYPES ? data_types[data_type].size : 0;
}

void comm_group_name(char *buf, size_t len, const struct profdata *p,
		     const struct comm_op *op)
{
	uint32_t group = op->group;

	if (op->raw && op->group_name != NO_STR)
		snprintf(buf, len, "%s", strtab_str(&p->names, op->group_name));
	else if (group == COMM_UNKNOWN)
		snprintf(buf, len, "N/A");
	else if (!group)
		snprintf(buf, len, "hccl_world_group");
	else
		snprintf(buf, len, "hccl_group_%u", group);
}

const char *comm_op_type(const struct profdata *p, const struct comm_op *op)
{
	const struct devop *o = profdata_task_op(p, &p->tasks[op->task]);

	if (op->raw && o->op_type != NO_STR)
		return strtab_str(&p->names, o->op_type);
	return naming_op_name(p, &p->tasks[op->task]);
}

void comm_op_name(char *buf, size_t len, const struct profdata *p,
		  const struct comm_op *op)
{
	char group[256];
	size_t n;

	if (op->raw)
		snprintf(group, sizeof(group), "%llu", (unsigned long long)op->comm);
	else
		comm_group_name(group, sizeof(group), p, op);
	n = strlen(group);
	snprintf(buf, len, "%s_%s_%u_1", naming_op_name(p, &p->tasks[op->task]),
		 group + (n > 3 ? n - 3 : 0), op->seq);
}

/* Ops by connection id, for the walk of the calls. */
struct by_conn {
	const struct profdata *p;
	struct comm_ops *c;
	size_t *idx;		/* into c->v, by conn */
};

static int cmp_conn(const void *a, const void *b, void *ctx)
{
	const struct comm_op *v = ctx;
	uint64_t x = v[*(const size_t *)a].conn, y = v[*(const size_t *)b].conn;

	return x < y ? -1 : x > y;
}

static struct comm_op *op_of(const struct by_conn *bc, uint64_t conn)
{
	size_t lo = 0, hi = bc->c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct comm_op *op = &bc->c->v[bc->idx[mid]];

		if (op->conn == conn)
			return op;
		if (op->conn < conn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A collective's call: what it said of its op, by its arguments' names. */
static int note_call(const struct msprof_api_event *e, uint64_t conn, void *ctx)
{
	const struct by_conn *bc = ctx;
	const struct api_desc *d = profdata_desc(bc->p, e->api_id);
	struct comm_op *op;
	uint64_t v;

	if (!d || d->layer != MSPROF_LAYER_HCCL)
		return 0;
	op = op_of(bc, conn);
	if (!op)
		return 0;
	op->group = 0;	/* known; numbered once every call is seen */
	/* An Hccl* call names its count one of three ways, never two. */
	if (profdata_arg(d, e, "count", &v) ||
	    profdata_arg(d, e, "send_count", &v) ||
	    profdata_arg(d, e, "recv_count", &v))
		op->count = v;
	if (profdata_arg(d, e, "dtype", &v))
		op->data_type = (uint32_t)v;
	if (profdata_arg(d, e, "comm", &v))
		op->comm = v;
	return 0;
}

/* A grouped op, by communicator, then by its place in c->v. */
struct by_comm {
	uint64_t comm;
	size_t op;
};

static int cmp_comm(const void *a, const void *b)
{
	const struct by_comm *x = a, *y = b;

	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	return (x->op > y->op) - (x->op < y->op);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* A group's number: the place of its first op among the groups' first. */
static uint32_t group_of(const size_t *first, size_t ngroups, size_t op)
{
	const size_t *f = bsearch(&op, first, ngroups, sizeof(*first), cmp_size);

	return (uint32_t)(f - first);
}

/*
 * Numbers the groups by first op and each group's ops in start order.
 * Sorted, not searched op by op: the task's user writes the communicator
 * handles, and with a new one at each op a search over the groups so far
 * made the time grow with the square of the ops.
 */
static int number_groups(struct comm_ops *c)
{
	struct by_comm *v = malloc(c->n * sizeof(*v));
	size_t *first = malloc(c->n * sizeof(*first));
	size_t i, j, n = 0;
	uint32_t g;
	int err = 0;

	if (!v || !first) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < c->n; i++)
		if (c->v[i].group != COMM_UNKNOWN)
			v[n++] = (struct by_comm){ c->v[i].comm, i };
	qsort(v, n, sizeof(*v), cmp_comm);
	for (i = 0; i < n; i = j) {
		first[c->ngroups++] = v[i].op;
		for (j = i; j < n && v[j].comm == v[i].comm; j++)
			c->v[v[j].op].seq = (uint32_t)(j - i);
	}
	qsort(first, c->ngroups, sizeof(*first), cmp_size);
	for (i = 0; i < n; i = j) {
		g = group_of(first, c->ngroups, v[i].op);
		for (j = i; j < n && v[j].comm == v[i].comm; j++)
			c->v[v[j].op].group = g;
	}
out:
	free(first);
	free(v);
	return err;
}

/* A collective's task of no hccl_info: an op of its own (npusim's, CUPTI's). */
static bool is_single(const struct profdata *p, const struct devtask *t)
{
	return overlap_is_comm(p, t) && !comm_cann_task(p, t);
}

/* The ops of one task each, their groups from their Hccl* calls. */
static int single_ops(struct comm_ops *c, const struct profdata *p, size_t n)
{
	struct by_conn bc = { p, c, NULL };
	uint32_t unknown_seq = 0;
	size_t i;
	int err;

	bc.idx = calloc(n, sizeof(*bc.idx));
	if (!bc.idx)
		return -ENOMEM;
	for (i = 0; i < p->ntasks; i++) {
		const struct devtask *t = &p->tasks[i];

		if (!is_single(p, t))
			continue;
		c->v[c->n] = (struct comm_op){
			.task = i, .conn = t->conn, .start_ns = t->start_ns,
			.end_ns = t->end_ns, .data_type = COMM_UNKNOWN,
			.group = COMM_UNKNOWN, .group_name = NO_STR,
			.first = c->n, .ntasks = 1,
		};
		c->tasks[c->n] = i;
		bc.idx[c->n] = c->n;
		c->n++;
	}
	qsort_r(bc.idx, c->n, sizeof(*bc.idx), cmp_conn, c->v);
	err = profdata_each_host(p, note_call, NULL, &bc);
	free(bc.idx);
	if (!err)
		err = number_groups(c);
	for (i = 0; !err && i < c->n; i++) {
		struct comm_op *op = &c->v[i];

		/* Ops whose call went unseen are numbered among themselves. */
		if (op->group == COMM_UNKNOWN)
			op->seq = unknown_seq++;
		op->bytes = op->count * comm_data_type_size(op->data_type);
	}
	return err;
}

static int by_device_start(const void *a, const void *b, void *ctx)
{
	const struct comm_op *x = a, *y = b;
	const struct profdata *p = ctx;
	uint16_t dx = p->tasks[x->task].device, dy = p->tasks[y->task].device;

	if (dx != dy)
		return dx < dy ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return (x->task > y->task) - (x->task < y->task);
}

int comm_ops_load(struct comm_ops *c, const struct profdata *p)
{
	size_t i, n = 0;
	int err;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < p->ntasks; i++)
		n += overlap_is_comm(p, &p->tasks[i]);
	if (!n)
		return 0;
	c->v = calloc(n, sizeof(*c->v));
	c->tasks = calloc(n, sizeof(*c->tasks));
	if (!c->v || !c->tasks)
		return -ENOMEM;
	err = single_ops(c, p, n) ?: comm_cann_ops(c, p);
	if (!err && c->n)
		qsort_r(c->v, c->n, sizeof(*c->v), by_device_start, (void *)p);
	return err;
}

void comm_ops_free(struct comm_ops *c)
{
	free(c->v);
	free(c->tasks);
	memset(c, 0, sizeof(*c));
}
