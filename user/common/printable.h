/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PRINTABLE_H
#define MSPROF_PRINTABLE_H

/*
 * Replaces each control character of s by '?', in place: bytes below
 * 0x20 and 0x7f, the C1 controls (UTF-8 U+0080..U+009F, and bytes
 * 0x80..0xbf that continue no character):
 * names and texts other users wrote (a PROF_ entry's name, a reason in its
 * metadata) reach root's terminal, where an escape sequence would act.
 * Returns s.
 */
char *printable(char *s);

#endif
