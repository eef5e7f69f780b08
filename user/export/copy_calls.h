/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_COPY_CALLS_H
#define MSPROF_COPY_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profdata.h"

/*
 * The copies whose size and direction only their launching call tells
 * (no memcpy_info of the runtime's says them), by that call's connection
 * id: found once among the tasks, filled in from the calls' arguments as
 * the host records are walked, read by the timeline and the db.
 */
struct copy_call {
	uint64_t conn;
	size_t task;		/* in profdata.tasks */
	uint64_t bytes;		/* the call's "count" */
	uint64_t kind;		/* its "kind": aclrtMemcpyKind, cudaMemcpyKind */
	bool has_bytes, has_kind;	/* the call was walked and kept them */
};

struct copy_calls {
	struct copy_call *v;	/* by conn, then task */
	size_t n;
};

/* The copies of p (none: n 0); -ENOMEM.  copy_calls_free() either way. */
int copy_calls_load(struct copy_calls *c, const struct profdata *p);
void copy_calls_free(struct copy_calls *c);

/*
 * Call e (of API d, connection id conn) walked: the copies it made, *n of
 * them (NULL, 0: none), filled in with its arguments.
 */
struct copy_call *copy_calls_note(struct copy_calls *c, const struct api_desc *d,
				  const struct msprof_api_event *e, uint64_t conn,
				  size_t *n);
/* The first copy conn made, or NULL. */
const struct copy_call *copy_calls_find(const struct copy_calls *c,
					uint64_t conn);

#endif
