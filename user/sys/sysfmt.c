// SPDX-License-Identifier: MIT
/* The lines of msprof's host data files, from what /proc said. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sysfmt.h"

void sysbuf_add(struct sysbuf *b, const void *s, size_t n)
{
	if (b->full || n > b->cap - b->len) {
		b->full = true;
		return;
	}
	memcpy(b->v + b->len, s, n);
	b->len += n;
}

void sysbuf_printf(struct sysbuf *b, const char *fmt, ...)
{
	size_t room = b->cap - b->len;
	va_list ap;
	int n;

	if (b->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->v + b->len, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room)
		b->full = true;
	else
		b->len += (size_t)n;
}

/* What may stand in a comm that a whitespace split must keep whole. */
static char safe_char(char c)
{
	return c > ' ' && c < 0x7f ? c : '_';
}

size_t sysfmt_stat_clean(char *line, size_t len)
{
	char *open, *close;
	size_t i;

	/* The kernel's line ends in '\n'; a comm may hold one too. */
	if (len && line[len - 1] == '\n')
		len--;
	open = memchr(line, '(', len);
	close = open ? memrchr(open, ')', len - (size_t)(open - line)) : NULL;
	if (!close || (size_t)(close - line) + 2 > len || close[1] != ' ')
		return 0;
	for (i = (size_t)(close - line) + 1; i < len; i++)
		if (line[i] != ' ' && line[i] != '-' &&
		    (line[i] < '0' || line[i] > '9') &&
		    (line[i] < 'A' || line[i] > 'Z') &&
		    (line[i] < 'a' || line[i] > 'z'))
			return 0;
	for (open++; open < close; open++)
		*open = safe_char(*open);
	return len;
}

bool sysfmt_stat_field(const char *line, size_t len, unsigned int i,
		       unsigned long long *v)
{
	const char *at = memrchr(line, ')', len), *end = line + len;
	char num[24];
	size_t n;

	if (i < 2) {
		if (i)
			return false;
		*v = strtoull(line, NULL, 10);
		return true;
	}
	if (!at)
		return false;
	for (at++, i -= 2; at < end; i--) {
		while (at < end && *at == ' ')
			at++;
		n = 0;
		while (at + n < end && at[n] != ' ')
			n++;
		if (!n)
			return false;
		if (i == 0) {
			if (n >= sizeof(num) || strspn(at, "0123456789") < n)
				return false;
			memcpy(num, at, n);
			num[n] = '\0';
			*v = strtoull(num, NULL, 10);
			return true;
		}
		at += n;
	}
	return false;
}

void sysfmt_comm_clean(char *comm)
{
	size_t i;

	comm[strcspn(comm, "\n")] = '\0';
	for (i = 0; comm[i] && i < 15; i++)
		comm[i] = safe_char(comm[i]);
	comm[i] = '\0';
	if (!i)
		strcpy(comm, "_");
}

static bool io_value(const char *text, size_t len, const char *key,
		     uint64_t *v)
{
	size_t klen = strlen(key), at = 0;

	while (at + klen < len) {
		if (!memcmp(text + at, key, klen) && (!at || text[at - 1] == '\n')) {
			*v = strtoull(text + at + klen, NULL, 10);
			return true;
		}
		at++;
	}
	return false;
}

bool sysfmt_io_parse(const char *text, size_t len, uint64_t *read_bytes,
		     uint64_t *write_bytes)
{
	return io_value(text, len, "read_bytes: ", read_bytes) &&
	       io_value(text, len, "write_bytes: ", write_bytes);
}

/* iotop's units: the largest of B, K, M, G that leaves less than 2048. */
static void rate(struct sysbuf *b, double bps)
{
	static const char units[] = "BKMG";
	unsigned int u = 0;

	if (bps < 0)
		bps = 0;
	while (u + 1 < sizeof(units) - 1 && bps >= 2048) {
		bps /= 1024;
		u++;
	}
	sysbuf_printf(b, " %10.2f %c/s", bps, units[u]);
}

void sysfmt_disk_line(struct sysbuf *b, const struct sysfmt_disk *d)
{
	time_t secs = (time_t)(d->real_ns / 1000000000ull);
	struct tm tm;
	char hms[16];

	localtime_r(&secs, &tm);
	strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	sysbuf_printf(b, "%s %7d %4s %-8u", hms, d->pid, d->prio, d->uid);
	rate(b, d->read_bps);
	rate(b, d->write_bps);
	/* iotop's word where the kernel keeps no delays: swap-in and IO both. */
	if (d->io_pct < 0)
		sysbuf_printf(b, "  ?unavailable?  %s\n", d->comm);
	else
		sysbuf_printf(b, " %6.2f %% %6.2f %% %s\n", 0.0,
			      d->io_pct > 99.99 ? 99.99 : d->io_pct, d->comm);
}

void sysfmt_disk_start(struct sysbuf *b, uint64_t raw_ns)
{
	sysbuf_printf(b, "start_time %llu\n", (unsigned long long)raw_ns);
}

void sysfmt_netdev_lines(struct sysbuf *b, const char *text, size_t len)
{
	const char *at = text, *end = text + len, *nl;

	for (; at < end; at = nl + 1) {
		nl = memchr(at, '\n', (size_t)(end - at));
		if (!nl)
			break;		/* cut by the read's bound */
		if (memchr(at, ':', (size_t)(nl - at)))
			sysbuf_add(b, at, (size_t)(nl - at) + 1);
	}
}

unsigned int sysfmt_cpu_lines(struct sysbuf *b, const char *text, size_t len,
			      bool first_only)
{
	const char *at = text, *end = text + len, *nl;
	unsigned int n = 0;

	for (; at < end; at = nl + 1) {
		nl = memchr(at, '\n', (size_t)(end - at));
		if (!nl || nl - at < 3 || memcmp(at, "cpu", 3))
			break;
		sysbuf_add(b, at, (size_t)(nl - at) + 1);
		n++;
		if (first_only)
			break;
	}
	return n;
}

void sysfmt_usage_head(struct sysbuf *b, uint64_t raw_ns, unsigned int index,
		       size_t payload_len)
{
	sysbuf_printf(b, "TimeStamp:%llu\nIndex:%u\nDataLen:%zu\n",
		      (unsigned long long)raw_ns, index, payload_len);
}

void sysfmt_usage_end(struct sysbuf *b)
{
	sysbuf_add(b, "\n", 1);
}
