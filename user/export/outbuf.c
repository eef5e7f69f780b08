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

/* Two digits of v < 100 before end. */
static char *two(char *end, unsigned int v)
{
	end -= 2;
	memcpy(end, pairs + 2 * v, 2);
	return end;
}

/*
 * Digits of v, at least min of them, right-aligned at end: two a
 * division, and eight at a time in 32 bits while v is larger (a 64-bit
 * division costs several 32-bit ones).
 */
static char *digits(char *end, uint64_t v, int min)
{
	char *stop = end - min;
	uint32_t x;
	int i;

	while (v >= 100000000) {
		x = (uint32_t)(v % 100000000);
		v /= 100000000;
		for (i = 0; i < 4; i++) {
			end = two(end, x % 100);
			x /= 100;
		}
	}
	x = (uint32_t)v;
	while (x >= 100) {
		end = two(end, x % 100);
		x /= 100;
	}
	if (x >= 10)
		end = two(end, x);
	else
		*--end = (char)('0' + x);
	while (end > stop)
		*--end = '0';
	return end;
}

/* 10^n for n digits but the first's 0: where n + 1 digits begin. */
static const uint64_t tens[20] = {
	0, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
	1000000000, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull,
	10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
	10000000000000000000ull,
};

/*
 * How many digits v has: log10 from its bit length (1233 / 4096 is
 * log10(2) a little over), corrected by one comparison.
 */
static unsigned int count_digits(uint64_t v)
{
	unsigned int t = (unsigned int)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t - (v < tens[t]) + 1;
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

void ob_json_chars(struct outbuf *b, const char *s)
{
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
}

void ob_json_str(struct outbuf *b, const char *s)
{
	ob_char(b, '"');
	ob_json_chars(b, s);
	ob_char(b, '"');
}
