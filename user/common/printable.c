// SPDX-License-Identifier: MIT
#include <langinfo.h>
#include <locale.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "printable.h"

/*
 * The length of the character at p if it is well-formed UTF-8 and no
 * control, else 0: an overlong form, a lead byte without its continuation
 * bytes or a lone continuation byte is what lets a C1 control (0x9b, CSI)
 * through to a terminal that does not decode it.
 */
static size_t utf8_len(const unsigned char *p)
{
	static const uint32_t least[] = { 0, 0, 0xa0, 0x800, 0x10000 };
	uint32_t cp;
	size_t n, i;

	if (*p >= 0xc2 && *p <= 0xdf)
		n = 2, cp = *p & 0x1f;
	else if (*p >= 0xe0 && *p <= 0xef)
		n = 3, cp = *p & 0x0f;
	else if (*p >= 0xf0 && *p <= 0xf4)
		n = 4, cp = *p & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* U+0080..U+009F are the C1 controls; surrogates are no characters. */
	if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

char *printable_as(char *s, bool utf8)
{
	unsigned char *p = (unsigned char *)s;
	size_t n;

	while (*p) {
		if (*p >= 0x20 && *p < 0x7f) {
			p++;
			continue;
		}
		n = utf8 ? utf8_len(p) : 0;
		if (n)
			p += n;
		else
			*p++ = '?';
	}
	return s;
}

static bool terminal_utf8;

static void read_locale(void)
{
	locale_t loc = newlocale(LC_CTYPE_MASK, "", (locale_t)0);

	if (loc == (locale_t)0)
		return;
	terminal_utf8 = !strcmp(nl_langinfo_l(CODESET, loc), "UTF-8");
	freelocale(loc);
}

char *printable(char *s)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, read_locale);
	return printable_as(s, terminal_utf8);
}

const char *printable_copy(char *buf, size_t len, const char *s)
{
	if (!len)
		return "";
	snprintf(buf, len, "%s", s);
	return printable(buf);
}
