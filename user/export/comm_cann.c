// SPDX-License-Identifier: MIT
/*
 * A runtime's collectives (§4.4): the tasks one node launch of an HCCL op
 * submitted, each with its hccl_info, are one op, as Huawei's analysis
 * draws it: its span from its first task's start to its last's end, its
 * group the one hccl_info names, its connection id the node launch's.
 */
#include <errno.h>
#include <stdlib.h>

#include "cann.h"
#include "comm.h"
#include "overlap.h"

bool comm_cann_task(const struct profdata *p, const struct devtask *t)
{
	const struct task_hccl *x;

	if (!p->nhccls || !overlap_is_comm(p, t))
		return false;
	x = profdata_hccl(p, t);
	return x && x->node;
}

/* A task of an op: the op's key, then its place (tasks are by start). */
struct member {
	uint16_t device;
	uint32_t node;
	size_t task;
};

static int by_node(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->task > y->task) - (x->task < y->task);
}

/* One op of the members [from, to): one node launch's tasks. */
static void make_op(struct comm_ops *c, const struct profdata *p,
		    const struct member *m, size_t from, size_t to, size_t *next)
{
	const struct task_hccl *x = profdata_hccl(p, &p->tasks[m[from].task]);
	struct comm_op *op = &c->v[c->n++];
	size_t i, at = *next;

	*op = (struct comm_op){
		/* The node launch's id as cann_each_call() gives it: after ours. */
		.task = m[from].task, .conn = p->ncalls + m[from].node, .raw = true,
		.start_ns = p->tasks[m[from].task].start_ns,
		.data_type = COMM_UNKNOWN, .group = COMM_UNKNOWN,
		.group_name = x->group, .comm = x->group_id,
		.rank_size = x->rank_size, .first = at, .ntasks = to - from,
	};
	for (i = from; i < to; i++) {
		const struct devtask *t = &p->tasks[m[i].task];

		if (t->end_ns > op->end_ns)
			op->end_ns = t->end_ns;
		op->bytes += profdata_hccl(p, t)->bytes;
		c->tasks[at++] = m[i].task;
	}
	*next = at;
}

static int by_start(const void *a, const void *b)
{
	const struct comm_op *x = *(const struct comm_op *const *)a;
	const struct comm_op *y = *(const struct comm_op *const *)b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return (x->task > y->task) - (x->task < y->task);
}

/*
 * Groups numbered after those of the Hccl* calls, in order of their first
 * op, and each group's ops in start order, per device (Huawei's analysis
 * numbers a device directory's ops by group).
 */
static int number_raw(struct comm_ops *c, size_t from)
{
	size_t n = c->n - from, i, j;
	struct comm_op **v = malloc((n ? n : 1) * sizeof(*v));
	uint32_t *names = malloc((n ? n : 1) * sizeof(*names));
	uint32_t *seqs = calloc(n ? n : 1, sizeof(*seqs));
	size_t ngroups = 0;

	if (!v || !names || !seqs) {
		free(v);
		free(names);
		free(seqs);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		v[i] = &c->v[from + i];
	qsort(v, n, sizeof(*v), by_start);
	for (i = 0; i < n; i++) {
		for (j = 0; j < ngroups && names[j] != v[i]->group_name; j++)
			;
		if (j == ngroups)
			names[ngroups++] = v[i]->group_name;
		v[i]->group = (uint32_t)(c->ngroups + j);
		v[i]->seq = seqs[j]++;
	}
	c->ngroups += ngroups;
	free(v);
	free(names);
	free(seqs);
	return 0;
}

/* The raw ops by connection id, to find their node launches among the calls. */
struct by_conn {
	const struct comm_op *v;
	size_t *idx, n;
};

static int cmp_conn(const void *a, const void *b, void *ctx)
{
	const struct comm_op *v = ctx;
	uint64_t x = v[*(const size_t *)a].conn, y = v[*(const size_t *)b].conn;

	return (x > y) - (x < y);
}

/* Where each op's node launch began, for its flow. */
static int note_node(const struct cann_call *call, void *ctx)
{
	struct by_conn *bc = ctx;
	struct comm_op *v = (struct comm_op *)bc->v;
	size_t lo = 0, hi = bc->n;

	if (call->level != CANN_LEVEL_NODE || call->type != CANN_NODE_LAUNCH)
		return 0;
	while (lo < hi) {	/* the first op of the call's id */
		size_t mid = lo + (hi - lo) / 2;

		if (v[bc->idx[mid]].conn < call->conn)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < bc->n && v[bc->idx[lo]].conn == call->conn; lo++) {
		v[bc->idx[lo]].call_ns = call->begin_ns;
		v[bc->idx[lo]].call_tid = call->tid;
	}
	return 0;
}

static int find_nodes(struct comm_ops *c, const struct profdata *p, size_t from)
{
	struct by_conn bc = { c->v, NULL, c->n - from };
	size_t i;
	int err;

	if (!bc.n)
		return 0;
	bc.idx = malloc(bc.n * sizeof(*bc.idx));
	if (!bc.idx)
		return -ENOMEM;
	for (i = 0; i < bc.n; i++)
		bc.idx[i] = from + i;
	qsort_r(bc.idx, bc.n, sizeof(*bc.idx), cmp_conn, c->v);
	err = cann_each_call(p, note_node, &bc);
	free(bc.idx);
	return err;
}

int comm_cann_ops(struct comm_ops *c, const struct profdata *p)
{
	struct member *m = malloc((p->nhccls ? p->nhccls : 1) * sizeof(*m));
	size_t i, j, n = 0, from = c->n, next = c->n;
	int err;

	if (!m)
		return -ENOMEM;
	for (i = 0; i < p->ntasks && n < p->nhccls; i++)
		if (comm_cann_task(p, &p->tasks[i]))
			m[n++] = (struct member){ p->tasks[i].device,
						  profdata_hccl(p, &p->tasks[i])->node, i };
	qsort(m, n, sizeof(*m), by_node);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && m[j].device == m[i].device &&
		     m[j].node == m[i].node; j++)
			;
		make_op(c, p, m, i, j, &next);
	}
	free(m);
	err = number_raw(c, from);
	return err ?: find_nodes(c, p, from);
}
