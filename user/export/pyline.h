/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PYLINE_H
#define MSPROF_PYLINE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The line of a frame, as CPython 3.minor's own PyCode_Addr2Line() finds
 * it in the code object's line table: instr is the frame's instruction as
 * the kernel took it (f_lasti before 3.11, else its byte offset from the
 * code object), code_off where 3.11+ code starts.  0 for an instruction
 * the table gives no line.
 */
int pyline_of(unsigned int minor, const uint8_t *table, size_t len,
	      int firstlineno, uint32_t code_off, int32_t instr);

#endif
