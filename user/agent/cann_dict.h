/* SPDX-License-Identifier: MIT */
/*
 * The names behind a window's numbers: type names (type_info_dic) and the
 * strings behind hash ids (hash_dic), kept for the process's life as
 * CANN's profiling library keeps them, so that an id a runtime keeps
 * between windows is named in every later one.
 */
#ifndef MSPROF_AGENT_CANN_DICT_H
#define MSPROF_AGENT_CANN_DICT_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

#define CANN_DICT_TYPES		1024	/* (level, type) names at most */
#define CANN_DICT_NAME		64	/* bytes of a type name, with its NUL */
#define CANN_DICT_STRINGS	65536	/* strings with an id at most */
#define CANN_DICT_STRING	1024	/* bytes of one string */

/* Names (level, type), replacing an earlier name.  0 or -errno. */
int cann_dict_add_type(uint16_t level, uint32_t type, const char *name);
/* The name of (level, type) in out, or "" when it has none. */
void cann_dict_type_name(uint16_t level, uint32_t type, char *out, size_t len);
/* The id of s (never 0), or 0: a line break in it, too long, table full. */
uint64_t cann_dict_hash(const char *s, size_t len);
/*
 * Writes unaging.additional.type_info_dic and .hash_dic slices into dir
 * (a host/data directory), every name known now.  0 or -errno.
 */
int cann_dict_write(int dir, uint64_t slice_limit);

#pragma GCC visibility pop

#endif
