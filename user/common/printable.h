/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PRINTABLE_H
#define MSPROF_PRINTABLE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Replaces, in place, each byte of s that a terminal could act on by '?':
 * names and texts other users wrote (a PROF_ entry's name, a source path,
 * a reason in its metadata) reach root's terminal, where an escape
 * sequence would set its title, colours or worse.  Bytes below 0x20 and
 * 0x7f go; so does every byte of 0x80 and above that is not part of a
 * well-formed UTF-8 character other than a C1 control (U+0080..U+009F).
 * Those characters are kept only where the user's locale (LC_ALL,
 * LC_CTYPE, LANG) is UTF-8: an 8-bit terminal reads any byte 0x80..0x9f,
 * even inside a character, as a C1 control.  Returns s.
 */
char *printable(char *s);
/*
 * The same for a terminal that decodes UTF-8 or not; with utf8 true, for
 * text msprof keeps (metadata, a path it uses), which must not depend on
 * the locale it ran in.
 */
char *printable_as(char *s, bool utf8);
/* s, cut to fit len, made printable in buf, for a line: returns buf. */
const char *printable_copy(char *buf, size_t len, const char *s);

#endif
