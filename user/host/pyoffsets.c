// SPDX-License-Identifier: MIT
/*
 * CPython 3.9-3.13 layouts.  Measured with offsetof() against each
 * version's own headers (3.9.18, 3.10.13, 3.11.7, 3.12.1, 3.13.0); the
 * arm64 autoTSSkey offsets of 3.9-3.11 are 16 bytes further because the
 * GIL state before it embeds mutexes, which are bigger there.
 */
#include <stddef.h>

#include "msprof/pystack.h"
#include "pyoffsets.h"

#define NONE MSPROF_PY_NONE

static const struct pyoffsets table[] = {
	{
		.minor = 9, .rt_tss_x86_64 = 0x248, .rt_tss_arm64 = 0x258,
		.rt_interp_head = 0x20, .interp_threads = 0x08,
		.ts_next = 0x08, .ts_thread_id = 0xb0,
		.f = { .ts_frame = 0x18, .cf_frame = NONE, .fr_back = 0x18,
		       .fr_code = 0x20, .fr_instr = 0x68, .fr_owner = NONE,
		       .fr_read = 0x70, .instr_ptr = 0 },
		.owner_shim = 0xff,
		.co_firstlineno = 0x28, .co_filename = 0x68, .co_name = 0x70,
		.co_qualname = NONE, .co_linetable = 0x78, .co_code = 0x30,
		.co_firsttraceable = NONE, .co_size = 0xb0, .ascii_size = 0x30,
	},
	{
		.minor = 10, .rt_tss_x86_64 = 0x248, .rt_tss_arm64 = 0x258,
		.rt_interp_head = 0x20, .interp_threads = 0x08,
		.ts_next = 0x08, .ts_thread_id = 0xb0,
		.f = { .ts_frame = 0x18, .cf_frame = NONE, .fr_back = 0x18,
		       .fr_code = 0x20, .fr_instr = 0x60, .fr_owner = NONE,
		       .fr_read = 0x68, .instr_ptr = 0 },
		.owner_shim = 0xff,
		.co_firstlineno = 0x28, .co_filename = 0x68, .co_name = 0x70,
		.co_qualname = NONE, .co_linetable = 0x78, .co_code = 0x30,
		.co_firsttraceable = NONE, .co_size = 0xb0, .ascii_size = 0x30,
	},
	{
		.minor = 11, .rt_tss_x86_64 = 0x250, .rt_tss_arm64 = 0x260,
		.rt_interp_head = 0x28, .interp_threads = 0x10,
		.ts_next = 0x08, .ts_thread_id = 0x98,
		.f = { .ts_frame = 0x38, .cf_frame = 0x08, .fr_back = 0x30,
		       .fr_code = 0x20, .fr_instr = 0x38, .fr_owner = 0x45,
		       .fr_read = 0x50, .instr_ptr = 1, .adjacent = 1 },
		.owner_shim = 0xff,
		.co_firstlineno = 0x48, .co_filename = 0x70, .co_name = 0x78,
		.co_qualname = 0x80, .co_linetable = 0x88, .co_code = 0xb8,
		.co_firsttraceable = 0xa8, .co_size = 0xc0, .ascii_size = 0x30,
	},
	{
		.minor = 12, .rt_tss_x86_64 = 0x608, .rt_tss_arm64 = 0x608,
		.rt_interp_head = 0x28, .interp_threads = 0x48,
		.ts_next = 0x08, .ts_thread_id = 0x88,
		.f = { .ts_frame = 0x38, .cf_frame = 0x00, .fr_back = 0x08,
		       .fr_code = 0x00, .fr_instr = 0x38, .fr_owner = 0x46,
		       .fr_read = 0x50, .instr_ptr = 1, .adjacent = 1 },
		.owner_shim = 3,
		.co_firstlineno = 0x44, .co_filename = 0x70, .co_name = 0x78,
		.co_qualname = 0x80, .co_linetable = 0x88, .co_code = 0xc0,
		.co_firsttraceable = 0xb0, .co_size = 0xc8, .ascii_size = 0x28,
	},
	{
		.minor = 13, .rt_tss_x86_64 = 0x870, .rt_tss_arm64 = 0x870,
		.rt_interp_head = 0x278, .interp_threads = 0x1cb0,
		.ts_next = 0x08, .ts_thread_id = 0x98,
		.f = { .ts_frame = 0x48, .cf_frame = NONE, .fr_back = 0x08,
		       .fr_code = 0x00, .fr_instr = 0x38, .fr_owner = 0x46,
		       .fr_read = 0x50, .instr_ptr = 1, .adjacent = 1 },
		.owner_shim = 3,
		.co_firstlineno = 0x44, .co_filename = 0x70, .co_name = 0x78,
		.co_qualname = 0x80, .co_linetable = 0x88, .co_code = 0xc8,
		.co_firsttraceable = 0xb8, .co_size = 0xd0, .ascii_size = 0x28,
	},
};

const struct pyoffsets *pyoffsets_of(unsigned int minor)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].minor == minor)
			return &table[i];
	return NULL;
}
