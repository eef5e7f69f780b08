// SPDX-License-Identifier: MIT
/*
 * CPython's line tables, read as each version writes them.  The tables
 * come from a task: every step checks the end of the table.
 */
#include <stdbool.h>

#include "pyline.h"

/* 3.9's co_lnotab: (address delta, signed line delta) byte pairs. */
static int lnotab_line(const uint8_t *t, size_t len, int line, int32_t addr)
{
	int32_t a = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		a += t[i];
		if (a > addr)
			break;
		line += (int8_t)t[i + 1];
	}
	return line;
}

/*
 * 3.10's co_linetable: (length in bytes, signed line delta) pairs, -128
 * for a range with no line, which leaves the running line where it was.
 */
static int linetable310_line(const uint8_t *t, size_t len, int line,
			     int32_t addr)
{
	int32_t start, end = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		int8_t dl = (int8_t)t[i + 1];
		bool none = dl == -128;

		start = end;
		end += t[i];
		if (!none)
			line += dl;
		if (start != end && addr >= start && addr < end)
			return none ? 0 : line;
	}
	return 0;
}

/* A varint of 6-bit groups, least significant first; 0x40: more follow. */
static uint32_t varint(const uint8_t *t, size_t len, size_t *i)
{
	uint32_t v = 0, shift = 0;
	uint8_t b;

	do {
		if (*i >= len || shift > 30)
			return v;
		b = t[(*i)++];
		v |= (uint32_t)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return v;
}

static int svarint(const uint8_t *t, size_t len, size_t *i)
{
	uint32_t v = varint(t, len, i);

	return v & 1 ? -(int)(v >> 1) : (int)(v >> 1);
}

/* The line change an entry of the location table makes (from 3.11). */
static int entry_delta(const uint8_t *t, size_t len, size_t at)
{
	unsigned int kind = (t[at] >> 3) & 15;
	size_t i = at + 1;

	if (kind == 13 || kind == 14)
		return svarint(t, len, &i);
	if (kind >= 10 && kind <= 12)
		return (int)kind - 10;
	return 0;	/* short forms, and 15: no line, the running line kept */
}

/* 3.11+: the location table, one entry per run of code units. */
static int location_line(const uint8_t *t, size_t len, int line, int32_t addr)
{
	int32_t start, end = 0;
	size_t at = 0;

	while (at < len) {
		bool none = (t[at] >> 3) == 0x1f;

		line += entry_delta(t, len, at);
		start = end;
		end += ((t[at] & 7) + 1) * 2;
		do
			at++;
		while (at < len && !(t[at] & 128));
		if (addr >= start && addr < end)
			return none ? 0 : line;
	}
	return 0;
}

int pyline_of(unsigned int minor, const uint8_t *table, size_t len,
	      int firstlineno, uint32_t code_off, int32_t instr)
{
	int32_t addr;

	if (instr < 0)
		return firstlineno;	/* not started */
	if (minor <= 9)
		return lnotab_line(table, len, firstlineno, instr);
	if (minor == 10)
		return linetable310_line(table, len, firstlineno,
					 instr > INT32_MAX / 2 ? INT32_MAX : instr * 2);
	addr = instr - (int32_t)code_off;
	if (addr < 0)
		return firstlineno;
	return location_line(table, len, firstlineno, addr);
}
