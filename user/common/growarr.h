/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_GROWARR_H
#define MSPROF_GROWARR_H

#include <stddef.h>

/*
 * Appends one element of size bytes to the array *arr of *n elements and
 * room for *cap, doubling the room when it is full: the new element (its
 * bytes as realloc() left them; *n counts it), or NULL with the array
 * untouched when memory, or a size_t, runs out.  *arr starts NULL, *n and
 * *cap 0; free(*arr) at the end.
 */
void *growarr_push(void **arr, size_t *n, size_t *cap, size_t size);

#endif
