/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_EXPORT_PYSTACK_H
#define MSPROF_EXPORT_PYSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "idmap.h"
#include "msprof/recfile.h"
#include "strtab.h"

/* A code object as msprof read it in the window. */
struct pycode {
	uint8_t *table;		/* its line table */
	uint32_t table_len;
	uint32_t file, name;	/* in pystacks.text */
	int32_t firstlineno;
	uint32_t code_off, firsttraceable;
	uint8_t minor, state;	/* enum msprof_pycode_state */
};

/* A frame: a place in a code object, and how it reads. */
struct pyframe {
	uint64_t code;
	int32_t instr;
	uint8_t owner;
	bool hidden;		/* not begun yet: CPython shows it nowhere */
	uint32_t text;		/* "file(line): func", in pystacks.text */
};

/* A distinct stack: frames innermost first (once finished: those shown). */
struct pychain {
	uint32_t first;		/* in pystacks.pool */
	uint16_t n;
	bool cut;		/* more frames than the depth kept */
};

/*
 * A window's Python stacks: the kernel's stack ids, each to one of the
 * distinct stacks (chains, numbered from 1), whose frames are named once
 * every code object is in (pystacks_finish).
 */
struct pystacks {
	struct idmap by_id, code_at, frame_at, chain_at;
	struct pycode *codes;
	size_t ncodes, cap_codes;
	struct pyframe *frames;
	size_t nframes, cap_frames;
	uint32_t *pool;
	size_t npool, cap_pool;
	struct pychain *chains;	/* [0]: none */
	size_t nchains, cap_chains;
	struct strtab text;
	uint64_t unknown;	/* frames whose code object was gone or unread */
	uint32_t unknown_text;	/* "<unknown>(0): <unknown>" */
	struct keyhash_key key;
};

int pystacks_add_stack(struct pystacks *py, const struct msprof_pystack_event *e,
		       size_t len);
int pystacks_add_code(struct pystacks *py, const struct msprof_pycode_rec *r,
		      size_t len);
/* Names every frame, once the window's records are all in. */
int pystacks_finish(struct pystacks *py);
/* The chain of a call's stack_id; 0: it has none. */
uint32_t pystacks_chain(const struct pystacks *py, uint64_t stack_id);
/* Frame i of the chain (0 innermost), once finished; false past the last. */
bool pystacks_frame(const struct pystacks *py, uint32_t chain, size_t i,
		    uint32_t *text);
void pystacks_free(struct pystacks *py);

#endif
