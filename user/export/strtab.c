// SPDX-License-Identifier: MIT
/* Interning the few distinct names a window's many records repeat. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/keyhash.h"
#include "strtab.h"

/*
 * The names come from the task's device data: keyed, so that the task
 * cannot pick names that all land in one run of slots.
 */
static uint32_t hash(const struct strtab *t, const char *s, size_t len)
{
	return (uint32_t)keyhash(&t->key, s, len);
}

static int grow_slots(struct strtab *t)
{
	uint32_t i, n = t->nslots ? t->nslots * 2 : 64;
	uint32_t *slots;
	int err;

	if (!t->nslots) {
		err = keyhash_key_new(&t->key);
		if (err)
			return err;
	}
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		uint32_t at = hash(t, t->strs[i], strlen(t->strs[i])) & (n - 1);

		while (slots[at])
			at = (at + 1) & (n - 1);
		slots[at] = i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

int strtab_intern(struct strtab *t, const char *s, size_t len, uint32_t *id)
{
	uint32_t at;
	char *copy;

	/* Half full at most, so that probes stay short. */
	int err;

	if ((t->n + 1) * 2 > t->nslots) {
		err = grow_slots(t);
		if (err)
			return err;
	}
	for (at = hash(t, s, len) & (t->nslots - 1); t->slots[at];
	     at = (at + 1) & (t->nslots - 1)) {
		const char *have = t->strs[t->slots[at] - 1];

		t->probes++;

		if (!strncmp(have, s, len) && !have[len]) {
			*id = t->slots[at] - 1;
			return 0;
		}
	}
	if (t->n == t->cap) {
		uint32_t ncap = t->cap ? t->cap * 2 : 64;
		char **strs = realloc(t->strs, ncap * sizeof(*strs));

		if (!strs)
			return -ENOMEM;
		t->strs = strs;
		t->cap = ncap;
	}
	copy = strndup(s, len);
	if (!copy)
		return -ENOMEM;
	t->strs[t->n] = copy;
	t->slots[at] = ++t->n;
	*id = t->n - 1;
	return 0;
}

void strtab_free(struct strtab *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
