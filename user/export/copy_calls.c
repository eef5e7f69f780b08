// SPDX-License-Identifier: MIT
/* The copies their launching calls tell the size of, by connection id. */
#include <errno.h>
#include <stdlib.h>

#include "copy_calls.h"

static bool told_by_call(const struct profdata *p, const struct devtask *t)
{
	return t->conn && devop_is_copy(profdata_task_op(p, t)) &&
	       !profdata_copy(p, t);
}

static int by_conn_task(const void *a, const void *b)
{
	const struct copy_call *x = a, *y = b;

	if (x->conn != y->conn)
		return x->conn < y->conn ? -1 : 1;
	return (x->task > y->task) - (x->task < y->task);
}

int copy_calls_load(struct copy_calls *c, const struct profdata *p)
{
	size_t i, n = 0;

	c->v = NULL;
	c->n = 0;
	for (i = 0; i < p->ntasks; i++)
		n += told_by_call(p, &p->tasks[i]);
	if (!n)
		return 0;
	c->v = calloc(n, sizeof(*c->v));
	if (!c->v)
		return -ENOMEM;
	for (i = 0; i < p->ntasks; i++)
		if (told_by_call(p, &p->tasks[i]))
			c->v[c->n++] = (struct copy_call){
				.conn = p->tasks[i].conn, .task = i };
	qsort(c->v, c->n, sizeof(*c->v), by_conn_task);
	return 0;
}

void copy_calls_free(struct copy_calls *c)
{
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

/* The first copy of conn, or where it would be. */
static size_t first_of(const struct copy_calls *c, uint64_t conn)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->v[mid].conn < conn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct copy_call *copy_calls_find(const struct copy_calls *c,
					uint64_t conn)
{
	size_t at = first_of(c, conn);

	return at < c->n && c->v[at].conn == conn ? &c->v[at] : NULL;
}

struct copy_call *copy_calls_note(struct copy_calls *c, const struct api_desc *d,
				  const struct msprof_api_event *e, uint64_t conn,
				  size_t *n)
{
	size_t at = first_of(c, conn), end;
	uint64_t bytes = 0, kind = 0;
	bool has_bytes, has_kind;

	for (end = at; end < c->n && c->v[end].conn == conn; end++)
		;
	*n = end - at;
	if (at == end)
		return NULL;
	has_bytes = profdata_arg(d, e, "count", &bytes);
	has_kind = profdata_arg(d, e, "kind", &kind);
	for (end = at; end < at + *n; end++)
		c->v[end] = (struct copy_call){
			.conn = conn, .task = c->v[end].task, .bytes = bytes,
			.kind = kind, .has_bytes = has_bytes,
			.has_kind = has_kind,
		};
	return &c->v[at];
}
