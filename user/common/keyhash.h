/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_KEYHASH_H
#define MSPROF_KEYHASH_H

#include <stddef.h>
#include <stdint.h>

/*
 * A keyed hash (SipHash-2-4) for tables of strings another user chose:
 * with an unkeyed hash, names made to share one value turn every lookup
 * into a walk of all of them, and root's work into the square of the
 * count.  Without the key nobody can tell which names collide.
 */
struct keyhash_key {
	uint64_t k[2];
};

/* A fresh random key (getrandom); 0 or a negative errno. */
int keyhash_key_new(struct keyhash_key *key);
uint64_t keyhash(const struct keyhash_key *key, const void *data, size_t len);

#endif
