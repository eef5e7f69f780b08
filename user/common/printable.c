// SPDX-License-Identifier: MIT
#include "printable.h"

char *printable(char *s)
{
	unsigned char *p = (unsigned char *)s;
	int follow = 0;	/* continuation bytes the character still needs */

	for (; *p; p++) {
		if (*p >= 0x80 && *p < 0xc0) {
			/* Alone, an 8-bit terminal reads it as a C1 control. */
			if (follow)
				follow--;
			else
				*p = '?';
			continue;
		}
		follow = 0;
		if (*p == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0) {
			/* U+0080..U+009F: the C1 controls, CSI among them. */
			p[0] = p[1] = '?';
			p++;
		} else if (*p >= 0xc0) {
			follow = *p >= 0xf0 ? 3 : *p >= 0xe0 ? 2 : 1;
		} else if (*p < 0x20 || *p == 0x7f) {
			*p = '?';
		}
	}
	return s;
}
