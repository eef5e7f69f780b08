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

void ob_strn_long(struct outbuf *b, const char *s, size_t n)
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

static const char pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Digits of v, at least min of them, right-aligned at end: two a division. */
static char *digits(char *end, uint64_t v, int min)
{
	char *stop = end - min;

	while (v >= 100) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		end -= 2;
		memcpy(end, pairs + 2 * r, 2);
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, pairs + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	while (end > stop)
		*--end = '0';
	return end;
}

/* How many digits v has. */
static unsigned int count_digits(uint64_t v)
{
	unsigned int n = 1;
	uint64_t p = 10;

	while (n < 20 && v >= p) {
		n++;
		p *= 10;
	}
	return n;
}

size_t fmt_u64(char *buf, uint64_t v)
{
	unsigned int n = count_digits(v);

	digits(buf + n, v, (int)n);
	buf[n] = '\0';
	return n;
}

size_t fmt_us3(char *buf, uint64_t ns)
{
	size_t n = fmt_u64(buf, ns / 1000);

	buf[n] = '.';
	digits(buf + n + 4, ns % 1000, 3);
	buf[n + 4] = '\0';
	return n + 4;
}

/* Written in place: no copy of a number through a buffer of its own. */
void ob_u64(struct outbuf *b, uint64_t v)
{
	ob_room(b);
	b->len += fmt_u64(b->buf + b->len, v);
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
	ob_room(b);
	b->len += fmt_us3(b->buf + b->len, ns);
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
