// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>

#include "idmap.h"

static size_t slot_of(const struct idmap *m, uint64_t k)
{
	return (size_t)keyhash(&m->key, &k, sizeof(k)) & (m->cap - 1);
}

int idmap_get(const struct idmap *m, uint64_t k, uint32_t *v)
{
	size_t i;

	if (!m->cap)
		return -ENOENT;
	for (i = slot_of(m, k); m->vals[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == k) {
			*v = m->vals[i] - 1;
			return 0;
		}
	return -ENOENT;
}

static void place(struct idmap *m, uint64_t k, uint32_t v1)
{
	size_t i;

	for (i = slot_of(m, k); m->vals[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == k) {
			m->vals[i] = v1;
			return;
		}
	m->keys[i] = k;
	m->vals[i] = v1;
	m->n++;
}

static int grow(struct idmap *m)
{
	struct idmap old = *m;
	size_t i;
	int err;

	if (!old.cap) {
		err = keyhash_key_new(&m->key);
		if (err)
			return err;
	}
	m->cap = old.cap ? old.cap * 2 : 64;
	m->keys = calloc(m->cap, sizeof(*m->keys));
	m->vals = calloc(m->cap, sizeof(*m->vals));
	if (!m->keys || !m->vals) {
		free(m->keys);
		free(m->vals);
		*m = old;
		return -ENOMEM;
	}
	m->n = 0;
	for (i = 0; i < old.cap; i++)
		if (old.vals[i])
			place(m, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
	return 0;
}

int idmap_put(struct idmap *m, uint64_t k, uint32_t v)
{
	int err;

	if ((m->n + 1) * 2 > m->cap) {
		err = grow(m);
		if (err)
			return err;
	}
	place(m, k, v + 1);
	return 0;
}

void idmap_free(struct idmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->n = m->cap = 0;
}
