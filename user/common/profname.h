/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PROFNAME_H
#define MSPROF_PROFNAME_H

#include <stddef.h>
#include <stdint.h>

/*
 * "PROF_<6-digit index>_<YYYYMMDDhhmmssmmm local>_<8-digit pid><8 letters
 * A-R>" as msprof names it; rnd supplies the 8 random bytes.
 * -ENAMETOOLONG if len is too short.
 */
int profname_make(char *buf, size_t len, unsigned int index, uint64_t real_ns,
		 int pid, const unsigned char rnd[8]);

#endif
