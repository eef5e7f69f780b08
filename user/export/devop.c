// SPDX-License-Identifier: MIT
/*
 * The device tasks' shared descriptions, interned, and the tasks' order:
 * a window of millions of tasks holds them in 48 bytes each, sorted where
 * they lie.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/keyhash.h"
#include "profdata.h"

static uint32_t op_hash(const struct profdata *p, const struct devop *op)
{
	return (uint32_t)keyhash(&p->op_key, op, sizeof(*op));
}

static int grow_op_slots(struct profdata *p)
{
	uint32_t i, n = p->nop_slots ? p->nop_slots * 2 : 64;
	uint32_t *slots;
	int err;

	/* Keyed: the ops come from the task's files. */
	if (!p->nop_slots) {
		err = keyhash_key_new(&p->op_key);
		if (err)
			return err;
	}
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < p->nops; i++) {
		uint32_t at = op_hash(p, &p->ops[i]) & (n - 1);

		while (slots[at])
			at = (at + 1) & (n - 1);
		slots[at] = i + 1;
	}
	free(p->op_slots);
	p->op_slots = slots;
	p->nop_slots = n;
	return 0;
}

/* An op's bytes are hashed and compared: none may be padding. */
_Static_assert(sizeof(struct devop) == offsetof(struct devop, rt_kind) + 1,
	       "struct devop has padding");

int profdata_op(struct profdata *p, const struct devop *op, uint32_t *id)
{
	struct devop key = *op;
	uint32_t at;
	int err;

	if ((p->nops + 1) * 2 > p->nop_slots) {
		err = grow_op_slots(p);
		if (err)
			return err;
	}
	for (at = op_hash(p, &key) & (p->nop_slots - 1); p->op_slots[at];
	     at = (at + 1) & (p->nop_slots - 1))
		if (!memcmp(&p->ops[p->op_slots[at] - 1], &key, sizeof(key))) {
			*id = p->op_slots[at] - 1;
			return 0;
		}
	if (p->nops == p->cap_ops) {
		uint32_t cap = p->cap_ops ? p->cap_ops * 2 : 64;
		struct devop *v = realloc(p->ops, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->ops = v;
		p->cap_ops = cap;
	}
	p->ops[p->nops] = key;
	p->op_slots[at] = ++p->nops;
	*id = p->nops - 1;
	return 0;
}

int profdata_op_named(struct profdata *p, const char *name, size_t len,
		      enum devtask_type type, uint32_t block_dim, uint32_t *id)
{
	struct devop op = {
		.op_type = NO_STR, .rt_type = NO_STR, .block_dim = block_dim,
		.type = (uint8_t)type, .sqe = DEVOP_NO_SQE, .ge_type = DEVOP_NO_GE,
		.hf32 = 2,
	};
	int i, err = strtab_intern(&p->names, name, len, &op.name);

	if (err)
		return err;
	op.kernel = op.name;
	for (i = 0; i < SHAPES; i++)
		op.shapes[i] = NO_STR;
	return profdata_op(p, &op, id);
}

struct sort_ctx {
	const struct devtask *tasks;
	int (*cmp)(const void *, const void *, void *);
};

static int by_index(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;

	return c->cmp(&c->tasks[*(const uint32_t *)a],
		      &c->tasks[*(const uint32_t *)b], NULL);
}

/*
 * glibc's qsort() copies what it sorts into a buffer of the same size: a
 * window's tasks would then take twice their memory.  Their numbers are
 * sorted instead, and the tasks moved into place along the cycles of
 * that order, each taken out once.
 */
int profdata_sort_range(struct profdata *p, size_t from, size_t count,
			int (*cmp)(const void *, const void *, void *))
{
	uint32_t *order, i, j, k, n = (uint32_t)count;
	struct sort_ctx c = { NULL, cmp };
	struct devtask *v;

	if (n < 2)	/* p->tasks may be NULL then: no offset from it */
		return 0;
	v = p->tasks + from;
	c.tasks = v;
	order = malloc((size_t)n * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), by_index, &c);
	for (i = 0; i < n; i++) {
		struct devtask held;

		if (order[i] == i || order[i] == UINT32_MAX)
			continue;
		held = v[i];
		for (j = i; order[j] != i; j = k) {
			k = order[j];
			v[j] = v[k];
			order[j] = UINT32_MAX;
		}
		v[j] = held;
		order[j] = UINT32_MAX;
	}
	free(order);
	return 0;
}

int profdata_sort_tasks(struct profdata *p,
			int (*cmp)(const void *, const void *, void *))
{
	return profdata_sort_range(p, 0, p->ntasks, cmp);
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

const struct task_copy *profdata_copy(const struct profdata *p,
				      const struct devtask *t)
{
	uint64_t key = devtask_key(t);

	return p->ncopies ? bsearch(&key, p->copies, p->ncopies,
				    sizeof(*p->copies), by_key) : NULL;
}

const struct task_hccl *profdata_hccl(const struct profdata *p,
				      const struct devtask *t)
{
	uint64_t key = devtask_key(t);

	return p->nhccls ? bsearch(&key, p->hccls, p->nhccls,
				   sizeof(*p->hccls), by_key) : NULL;
}
