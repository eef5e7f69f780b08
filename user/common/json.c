// SPDX-License-Identifier: MIT
/* The little JSON that msprof's own files and the timeline need. */
#include <stdlib.h>
#include <string.h>

#include "json.h"

void json_put_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\u%04x", c);
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}

long long json_find_number(const char *text, const char *key)
{
	char k[64];
	const char *at;

	snprintf(k, sizeof(k), "\"%s\":", key);
	at = strstr(text, k);
	return at ? strtoll(at + strlen(k), NULL, 10) : 0;
}
