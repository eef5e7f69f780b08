/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PYOFFSETS_H
#define MSPROF_PYOFFSETS_H

#include <stdint.h>

#include "msprof/pystack.h"

/*
 * Where CPython 3.minor keeps what a stack needs, per minor version
 * (measured on CPython's own headers, x86_64; aarch64 differs only where
 * arm64 is said).  3.13's _Py_DebugOffsets overrides the fields it has.
 */
struct pyoffsets {
	unsigned int minor;
	/* _PyRuntime: the Py_tss_t autoTSSkey (its key at +4), by arch */
	uint32_t rt_tss_x86_64, rt_tss_arm64;
	uint32_t rt_interp_head;	/* _PyRuntime.interpreters.head */
	uint32_t interp_threads;	/* PyInterpreterState: first thread state */
	uint32_t ts_next, ts_thread_id;	/* PyThreadState */
	struct msprof_py_frames f;	/* for the kernel's walk */
	uint8_t owner_shim;		/* owner of a shim frame; 0xff: none */
	/* code objects, read by msprof */
	uint16_t co_firstlineno, co_filename, co_name, co_qualname;
	uint16_t co_linetable;
	uint16_t co_code;		/* 3.9/3.10: co_code (bytes); else inline code */
	uint16_t co_firsttraceable;	/* NONE before 3.11 */
	uint16_t co_size;		/* sizeof(PyCodeObject): bytes read */
	uint16_t ascii_size;		/* sizeof(PyASCIIObject): where ASCII text is */
};

/* The table's row for 3.minor, or NULL: no stacks for that version. */
const struct pyoffsets *pyoffsets_of(unsigned int minor);

/* The oldest and newest minor versions the table has. */
#define PYOFFSETS_MIN_MINOR 9
#define PYOFFSETS_MAX_MINOR 13

#endif
