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

/*
 * The symbol tables one target's files may make us read at one start,
 * together (elfsym.h bounds each file): a task can map thousands of files
 * that each stay inside the bounds.  Four files at the bound of one; all
 * of libLLVM-15's .dynsym 230 times.
 */
#define SYMCACHE_WALK_BYTES (256ull << 20)
/* Files remembered; past it a file is read again at each lookup. */
#define SYMCACHE_MAX_FILES 65536

/* names (n of them) must outlive the cache. */
int symcache_new(struct symcache **out, const char *const *names, size_t n);
void symcache_free(struct symcache *c);
/* One target's lookups begin: SYMCACHE_WALK_BYTES more may be read. */
void symcache_walk_begin(struct symcache *c);
/*
 * *offsets: the n offsets for the file at path (0: not there), or NULL
 * when it has none of the names or is no ELF file we can read; valid
 * until the next call.  Returns 0, or the -errno of elfsym_find_funcs()
 * refusing the file, why[len] saying why in words: -EFBIG or -EINVAL
 * (remembered, and returned again at each lookup without a read), or
 * -ENOSPC (this walk read its share: read again at the next).  A file
 * replaced on disk is read again.
 */
int symcache_lookup(struct symcache *c, const char *path,
		    const uint64_t **offsets, char *why, size_t len);

#endif
