// SPDX-License-Identifier: MIT
/* Number and text cells of the summary CSVs, formatted by hand: a row is a few fwrite()s. */
#include <stdbool.h>
#include <string.h>

#include "outbuf.h"
#include "summary_csv.h"

/* The same past 64 bits (a variance can be), in two 64-bit halves: 128-bit division is slow. */
static size_t fmt_u128(char *buf, u128 v)
{
	const uint64_t e19 = 10000000000000000000ull;
	uint64_t lo;
	size_t n, i;

	if (v <= UINT64_MAX)
		return fmt_u64(buf, (uint64_t)v);
	n = fmt_u128(buf, v / e19);
	lo = (uint64_t)(v % e19);
	for (i = 19; i-- > 0; lo /= 10)
		buf[n + i] = (char)('0' + lo % 10);
	buf[n + 19] = '\0';
	return n + 19;
}

size_t csv_fmt_milli(char *buf, u128 milli)
{
	size_t n = fmt_u128(buf, milli / 1000);
	unsigned int frac = (unsigned int)(milli % 1000);

	if (!frac)
		return n;
	buf[n++] = '.';
	buf[n++] = (char)('0' + frac / 100);
	frac %= 100;
	if (frac) {
		buf[n++] = (char)('0' + frac / 10);
		frac %= 10;
		if (frac)
			buf[n++] = (char)('0' + frac);
	}
	buf[n] = '\0';
	return n;
}

u128 csv_div_round(u128 a, u128 b)
{
	return a / b + (a % b >= b - a % b);
}

u128 csv_variance_milli(uint64_t n, uint64_t sum, u128 sumsq)
{
	u128 mean, dev;

	if (!n)
		return 0;
	mean = csv_div_round(sum, n);
	/* Σ(d - mean)² = Σd² + n·mean² - 2·mean·Σd, never negative. */
	dev = sumsq + (u128)n * mean * mean - 2 * mean * (u128)sum;
	/* µs² = 10⁶ ns²: thousandths of µs² are 10³ ns². */
	return csv_div_round(dev, (u128)n * 1000);
}

void csv_us(FILE *fp, uint64_t ns)
{
	char buf[CSV_NUM_MAX];

	fwrite(buf, 1, fmt_us3(buf, ns), fp);
}

static void csv_milli(FILE *fp, u128 milli)
{
	char buf[CSV_NUM_MAX];

	fwrite(buf, 1, csv_fmt_milli(buf, milli), fp);
}

void csv_u64(FILE *fp, uint64_t v)
{
	char buf[CSV_NUM_MAX];

	fwrite(buf, 1, fmt_u64(buf, v), fp);
}

void csv_text(FILE *fp, const char *s)
{
	/* The task names its kernels: a spreadsheet would run a formula. */
	bool formula = *s && strchr("=+-@\t\r", *s);
	bool quoted = strpbrk(s, ",\"\r\n");
	const char *q;

	if (quoted)
		fputc('"', fp);
	if (formula)
		fputc('\'', fp);
	if (!quoted) {
		fputs(s, fp);
		return;
	}
	while ((q = strchr(s, '"'))) {
		fwrite(s, 1, (size_t)(q - s) + 1, fp);
		fputc('"', fp);
		s = q + 1;
	}
	fputs(s, fp);
	fputc('"', fp);
}

void csv_next_us(FILE *fp, uint64_t ns)
{
	fputc(',', fp);
	csv_us(fp, ns);
}

void csv_next_milli(FILE *fp, u128 milli)
{
	fputc(',', fp);
	csv_milli(fp, milli);
}

void csv_next_u64(FILE *fp, uint64_t v)
{
	fputc(',', fp);
	csv_u64(fp, v);
}

void csv_next_text(FILE *fp, const char *s)
{
	fputc(',', fp);
	csv_text(fp, s);
}

void csv_time_end(FILE *fp)
{
	fputc('\t', fp);
}
