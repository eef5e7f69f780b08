/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_SUMMARY_CSV_H
#define MSPROF_SUMMARY_CSV_H

#include <stdint.h>
#include <stdio.h>

/*
 * Cells of the summary CSVs, as msprof's exporter writes them: times are
 * integer ns with a point inserted (µs, exactly 3 decimals); statistics
 * are thousandths with the trailing zeros (and a bare point) stripped.
 * Everything is integer arithmetic, so a sum of a million calls is exact.
 */

typedef unsigned __int128 u128;

/* Longest cell the number formatters write, NUL included. */
#define CSV_NUM_MAX 48

/* Thousandths, trailing zeros stripped: 1500 -> "1.5", 2000 -> "2", 0 -> "0". */
size_t csv_fmt_milli(char *buf, u128 milli);

/* a / b rounded, halves away from zero (b > 0), as msprof's std::round. */
u128 csv_div_round(u128 a, u128 b);

/*
 * The population variance of n durations (sum and sum of squares in ns) in
 * thousandths of µs², as msprof computes it: around the mean rounded to
 * whole ns (3 decimals of µs), then rounded to 3 decimals.
 */
u128 csv_variance_milli(uint64_t n, uint64_t sum, u128 sumsq);

void csv_us(FILE *fp, uint64_t ns);
void csv_u64(FILE *fp, uint64_t v);
/*
 * A text cell.  msprof quotes nothing; a name holding a comma, quote or line
 * break (a C++ kernel's template arguments) would split its row, so such a
 * cell alone is quoted as RFC 4180 says, which every CSV reader takes.  A
 * cell that starts like a spreadsheet formula (= + - @ TAB CR) gets a '
 * first, so that opening the file runs nothing a task named.
 */
void csv_text(FILE *fp, const char *s);
/* The same cells after a comma: the next cell of a row. */
void csv_next_us(FILE *fp, uint64_t ns);
void csv_next_milli(FILE *fp, u128 milli);
void csv_next_u64(FILE *fp, uint64_t v);
void csv_next_text(FILE *fp, const char *s);
/* The end of a start or stop time cell: msprof's TAB keeps spreadsheets from rounding it. */
void csv_time_end(FILE *fp);

#endif
