// SPDX-License-Identifier: MIT
/* The host system files' lines, read within bounds, and the readers' helpers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/growarr.h"
#include "hostsys_lines.h"

void *hs_push(void **v, size_t *n, size_t *cap, size_t size)
{
	void *at = growarr_push(v, n, cap, size);

	if (at)
		memset(at, 0, size);
	return at;
}

void hs_fault(const struct hs_src *s, unsigned long long off, const char *what)
{
	profdata_problem(s->p, s->file, off, what);
}

bool hs_next_line(struct hs_lines *r, char **line, size_t *len)
{
	const size_t cap = HS_LINE_MAX * 8;
	char *nl;
	ssize_t n;

	for (;;) {
		nl = memchr(r->buf + r->at, '\n', r->len - r->at);
		if (r->skipping && (nl || r->eof)) {
			/* The end of a line too long for the buffer: dropped. */
			r->skipping = false;
			r->next_off += (nl ? (size_t)(nl - r->buf) + 1 : r->len) - r->at;
			r->at = nl ? (size_t)(nl - r->buf) + 1 : r->len;
			continue;
		}
		if (!r->skipping && (nl || (r->eof && r->at < r->len))) {
			*line = r->buf + r->at;
			*len = nl ? (size_t)(nl - *line) : r->len - r->at;
			(*line)[*len] = '\0';	/* the buffer keeps a byte for it */
			r->off = r->next_off;
			r->next_off += *len + (nl != NULL);
			r->at += *len + (nl != NULL);
			if (*len <= HS_LINE_MAX)
				return true;
			r->skipped++;
			continue;
		}
		if (r->eof)
			return false;
		if (r->at) {
			memmove(r->buf, r->buf + r->at, r->len - r->at);
			r->len -= r->at;
			r->at = 0;
		}
		if (r->len == cap) {
			/* One line fills the buffer: dropped up to its end. */
			r->next_off += r->len;
			r->len = 0;
			r->skipped++;
			r->skipping = true;
		}
		n = read(r->fd, r->buf + r->len, cap - r->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			r->eof = true;
		else
			r->len += (size_t)n;
	}
}

size_t hs_split(char *s, char **tok, size_t max)
{
	size_t n = 0;

	while (n < max) {
		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f')
			s++;
		if (!*s)
			break;
		tok[n++] = s;
		if (n == max)
			break;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\v' &&
		       *s != '\f')
			s++;
		if (*s)
			*s++ = '\0';
	}
	return n;
}

unsigned __int128 hs_div_even(unsigned __int128 num, unsigned __int128 den)
{
	unsigned __int128 q = num / den, r = num % den;

	if (2 * r > den || (2 * r == den && (q & 1)))
		q++;
	return q;
}

