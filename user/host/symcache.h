/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_SYMCACHE_H
#define MSPROF_SYMCACHE_H

#include <stddef.h>
#include <stdint.h>

/*
 * What elfsym_find_funcs() found in each file, so that a file is read once
 * per session however many targets and windows map it: a big task maps
 * hundreds of libraries, and most of them export nothing we probe.
 */
struct symcache;

/* names (n of them) must outlive the cache. */
int symcache_new(struct symcache **out, const char *const *names, size_t n);
void symcache_free(struct symcache *c);
/*
 * The n offsets for the file at path (0: not there), or NULL when it has
 * none of the names or is no ELF file we can read.  Valid until the next
 * call.  A file replaced on disk is read again.
 */
const uint64_t *symcache_lookup(struct symcache *c, const char *path);

#endif
