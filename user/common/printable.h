/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PRINTABLE_H
#define MSPROF_PRINTABLE_H

/*
 * Replaces each control byte of s (below 0x20, and 0x7f) by '?', in place:
 * names and texts other users wrote (a PROF_ entry's name, a reason in its
 * metadata) reach root's terminal, where an escape sequence would act.
 */
void printable(char *s);

#endif
