/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PYCODE_H
#define MSPROF_PYCODE_H

#include <stddef.h>
#include <stdint.h>

#include "msprof/recfile.h"
#include "pyruntime.h"

/* Code objects read at once. */
#define PYCODE_BATCH 32
/* Most distinct code objects a target's window reads. */
#define PYCODE_MAX_SEEN (1u << 16)

/*
 * One target's Python stacks in a window: the code objects they name, each
 * read from the task once, soon after it was first seen (code objects can
 * be freed and their memory reused), and written to the host file.
 */
struct pycodes {
	struct pyruntime rt;
	uint64_t *seen;		/* open addressing, PYCODE_MAX_SEEN * 2 slots */
	uint64_t nseen;
	uint64_t pending[PYCODE_BATCH];	/* seen, not read yet */
	unsigned int npending;
	uint64_t stacks;	/* stacks written */
	uint64_t unknown;	/* code objects gone or unreadable when read */
	uint64_t past_cap;	/* frames of code past PYCODE_MAX_SEEN */
};

int pycodes_new(struct pycodes **out, const struct pyruntime *rt);
void pycodes_free(struct pycodes *p);
/* Writes a stack to f and notes its code objects, reading a full batch. */
int pycodes_add_stack(struct pycodes *p, struct recfile *f,
		      const struct msprof_pystack_event *e, size_t size);
/* Reads every code object noted and not read yet, into f. */
int pycodes_flush(struct pycodes *p, struct recfile *f);

#endif
