// SPDX-License-Identifier: MIT
#include "printable.h"

void printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}
