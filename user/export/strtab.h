/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_STRTAB_H
#define MSPROF_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "common/keyhash.h"

/*
 * Interned strings: each distinct string once, numbered from 0 in the order
 * first met (the ids a db's STRING_IDS table or a task's name use).
 */
struct strtab {
	char **strs;		/* by id */
	uint32_t n, cap;
	uint32_t *slots;	/* open addressing: id + 1, 0 empty */
	uint32_t nslots;
	struct keyhash_key key;	/* this table's own, drawn as it is made */
	/* Occupied slots looked at: a flood shows as far more than n. */
	uint64_t probes;
};

/* The id of s[0..len), added if new; 0, -ENOMEM or getrandom's error. */
int strtab_intern(struct strtab *t, const char *s, size_t len, uint32_t *id);
static inline const char *strtab_str(const struct strtab *t, uint32_t id)
{
	return t->strs[id];
}
void strtab_free(struct strtab *t);

#endif
