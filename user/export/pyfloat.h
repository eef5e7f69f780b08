/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PYFLOAT_H
#define MSPROF_PYFLOAT_H

#include <stddef.h>

/* Longest text pyfloat_repr() writes, its NUL included. */
#define PYFLOAT_MAX 32

/*
 * A double as Python 3's repr() writes it, which is how the CSVs of
 * msprof's Python analysis print their floats: the fewest digits that read
 * back as the same double; fixed-point ("12500.0", "0.0001") from 1e-4 up
 * to below 1e16, else "1e-05", "1.2345678901234568e+17".  buf holds
 * PYFLOAT_MAX bytes; the text's length.
 */
size_t pyfloat_repr(char *buf, double v);

#endif
