/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_OUTBUF_H
#define MSPROF_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * Formatting millions of events: text is built in a buffer by these small
 * appenders and handed to stdio in large pieces, since printf's format
 * parsing is most of an export's time otherwise.
 */
#define OUTBUF_SIZE	65536
/* Most bytes one appender adds, but for ob_strn's own length. */
#define OUTBUF_SLACK	64

struct outbuf {
	FILE *fp;
	size_t len;
	char buf[OUTBUF_SIZE];
};

void ob_init(struct outbuf *b, FILE *fp);
/*
 * Hands what is buffered to stdio; 0, or -errno.  The appenders flush
 * when full and ignore the result: a failed write stays in the stream's
 * error flag, which the caller checks at the end (ferror).
 */
int ob_flush(struct outbuf *b);

/* Room for OUTBUF_SLACK more bytes. */
static inline void ob_room(struct outbuf *b)
{
	if (b->len > OUTBUF_SIZE - OUTBUF_SLACK)
		ob_flush(b);
}

/* What does not fit in the buffer's rest, in pieces. */
void ob_strn_long(struct outbuf *b, const char *s, size_t n);

/*
 * Inline, so that the length of a literal is known where it is appended
 * and the copy is a few moves, not a call.
 */
static inline void ob_strn(struct outbuf *b, const char *s, size_t n)
{
	if (n <= OUTBUF_SLACK) {
		ob_room(b);
		memcpy(b->buf + b->len, s, n);
		b->len += n;
	} else {
		ob_strn_long(b, s, n);
	}
}

static inline void ob_str(struct outbuf *b, const char *s)
{
	ob_strn(b, s, strlen(s));
}

static inline void ob_char(struct outbuf *b, char c)
{
	ob_room(b);
	b->buf[b->len++] = c;
}

/* The same numbers into buf (24 bytes suffice), NUL-ended; their length. */
size_t fmt_u64(char *buf, uint64_t v);
size_t fmt_us3(char *buf, uint64_t ns);

void ob_u64(struct outbuf *b, uint64_t v);
void ob_i64(struct outbuf *b, int64_t v);
void ob_hex(struct outbuf *b, uint64_t v);	/* lower case, no 0x */
/* ns as µs with exactly 3 decimals: 1234567 -> "1234.567". */
void ob_us3(struct outbuf *b, uint64_t ns);
/* A JSON string literal, quotes included, escaped as JSON needs. */
/* s as a JSON string's characters, escaped, without the quotes. */
void ob_json_chars(struct outbuf *b, const char *s);
void ob_json_str(struct outbuf *b, const char *s);

#endif
