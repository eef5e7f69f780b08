/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_IDMAP_H
#define MSPROF_IDMAP_H

#include <stddef.h>
#include <stdint.h>

#include "common/keyhash.h"

/*
 * 64-bit keys (addresses, ids a task's records name) to numbers, hashed
 * with a key of its own so that chosen keys cannot pile up in one place.
 */
struct idmap {
	uint64_t *keys;
	uint32_t *vals;		/* value + 1; 0: empty */
	size_t n, cap;		/* cap: a power of two, or 0 */
	struct keyhash_key key;
};

/* 0 and *v, or -ENOENT. */
int idmap_get(const struct idmap *m, uint64_t k, uint32_t *v);
/* Sets k's value (v < UINT32_MAX); 0, -ENOMEM or getrandom's error. */
int idmap_put(struct idmap *m, uint64_t k, uint32_t v);
void idmap_free(struct idmap *m);

#endif
