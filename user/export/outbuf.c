// SPDX-License-Identifier: MIT
/* The exporters' text buffer and its appenders. */
#include <errno.h>
#include <string.h>

#include "outbuf.h"

void ob_init(struct outbuf *b, FILE *fp)
{
	b->fp = fp;
	b->len = 0;
}

int ob_flush(struct outbuf *b)
{
	size_t n = b->len;

	b->len = 0;
	if (n && fwrite(b->buf, 1, n, b->fp) != n)
		return errno ? -errno : -EIO;
	return 0;
}

void ob_strn(struct outbuf *b, const char *s, size_t n)
{
	while (n) {
		size_t take = OUTBUF_SIZE - b->len;

		if (!take) {
			ob_flush(b);
			continue;
		}
		if (take > n)
			take = n;
		memcpy(b->buf + b->len, s, take);
		b->len += take;
		s += take;
		n -= take;
	}
}

void ob_str(struct outbuf *b, const char *s)
{
	ob_strn(b, s, strlen(s));
}

void ob_char(struct outbuf *b, char c)
{
	ob_room(b);
	b->buf[b->len++] = c;
}

/* Digits of v, at least min of them, right-aligned at end. */
static char *digits(char *end, uint64_t v, int min)
{
	int n = 0;

	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
		n++;
	} while (v || n < min);
	return end;
}

void ob_u64(struct outbuf *b, uint64_t v)
{
	char tmp[24], *end = tmp + sizeof(tmp), *at = digits(end, v, 1);

	ob_strn(b, at, (size_t)(end - at));
}

void ob_i64(struct outbuf *b, int64_t v)
{
	if (v < 0) {
		ob_char(b, '-');
		ob_u64(b, -(uint64_t)v);
	} else {
		ob_u64(b, (uint64_t)v);
	}
}

void ob_hex(struct outbuf *b, uint64_t v)
{
	char tmp[16], *end = tmp + sizeof(tmp), *at = end;

	do {
		*--at = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	ob_strn(b, at, (size_t)(end - at));
}

void ob_us3(struct outbuf *b, uint64_t ns)
{
	char tmp[32], *end = tmp + sizeof(tmp), *at;

	at = digits(end, ns % 1000, 3);
	*--at = '.';
	at = digits(at, ns / 1000, 1);
	ob_strn(b, at, (size_t)(end - at));
}

void ob_json_str(struct outbuf *b, const char *s)
{
	ob_char(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		ob_room(b);
		if (c == '"' || c == '\\') {
			b->buf[b->len++] = '\\';
			b->buf[b->len++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			memcpy(b->buf + b->len, "\\u00", 4);
			b->buf[b->len + 4] = "0123456789abcdef"[c >> 4];
			b->buf[b->len + 5] = "0123456789abcdef"[c & 15];
			b->len += 6;
		} else {
			b->buf[b->len++] = (char)c;
		}
	}
	ob_char(b, '"');
}
