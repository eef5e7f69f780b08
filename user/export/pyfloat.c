// SPDX-License-Identifier: MIT
/* Python's repr() of a float (PEP 3101's 'r', David Gay's shortest digits). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyfloat.h"

/*
 * The shortest "%.*e" that reads back: the correctly rounded p-digit
 * decimal is the nearest one, so if any p digits read back, it does.
 */
static void shortest(double v, char *digits, int *ndigits, int *exp10)
{
	char e[40], *at;
	int prec;

	for (prec = 0; prec < 17; prec++) {
		snprintf(e, sizeof(e), "%.*e", prec, v);
		if (strtod(e, NULL) == v)
			break;
	}
	*ndigits = 0;
	for (at = e; *at && *at != 'e'; at++)
		if (*at >= '0' && *at <= '9')
			digits[(*ndigits)++] = *at;
	*exp10 = atoi(at + 1);
	while (*ndigits > 1 && digits[*ndigits - 1] == '0')
		(*ndigits)--;
}

size_t pyfloat_repr(char *buf, double v)
{
	char digits[20] = "", *p = buf;
	int n, e, i;

	if (isnan(v))
		return (size_t)snprintf(buf, PYFLOAT_MAX, "nan");
	if (signbit(v))
		*p++ = '-', v = -v;
	if (isinf(v))
		return (size_t)(p - buf) + (size_t)snprintf(p, 4, "inf");
	if (v == 0)
		return (size_t)(p - buf) + (size_t)snprintf(p, 4, "0.0");
	shortest(v, digits, &n, &e);
	if (e < -4 || e >= 16) {
		*p++ = digits[0];
		if (n > 1) {
			*p++ = '.';
			memcpy(p, digits + 1, (size_t)n - 1);
			p += n - 1;
		}
		return (size_t)(p - buf) + (size_t)snprintf(p, 8, "e%c%02d",
							      e < 0 ? '-' : '+', abs(e));
	}
	if (e < 0) {
		p += snprintf(p, 4, "0.");
		for (i = -1; i > e; i--)
			*p++ = '0';
		memcpy(p, digits, (size_t)n);
		p += n;
	} else {
		for (i = 0; i <= e; i++)
			*p++ = i < n ? digits[i] : '0';
		*p++ = '.';
		if (n > e + 1) {
			memcpy(p, digits + e + 1, (size_t)(n - e - 1));
			p += n - e - 1;
		} else {
			*p++ = '0';
		}
	}
	*p = '\0';
	return (size_t)(p - buf);
}
