// SPDX-License-Identifier: MIT
/*
 * A window's Python stacks read back: the kernel's frames deduplicated
 * into distinct stacks, named from the code objects msprof read.  The
 * records are a task's view of itself: a frame whose code object is
 * missing, gone or unreadable is shown as unknown and counted, never
 * guessed at.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/growarr.h"
#include "msprof/pystack.h"
#include "pyline.h"
#include "pystack.h"

#define UNKNOWN "<unknown>(0): <unknown>"
/* Longest "file(line): func" kept. */
#define TEXT_MAX (2 * MSPROF_PYCODE_NAME_MAX + 32)

static int ensure_key(struct pystacks *py)
{
	int err;

	if (py->key.k[0] || py->key.k[1])
		return 0;
	err = keyhash_key_new(&py->key);
	if (err)
		return err;
	if (!py->nchains && !growarr_push((void **)&py->chains, &py->nchains,
					  &py->cap_chains, sizeof(*py->chains)))
		return -ENOMEM;
	memset(py->chains, 0, sizeof(*py->chains));
	return strtab_intern(&py->text, UNKNOWN, strlen(UNKNOWN),
			     &py->unknown_text);
}

/* The frame's number, added if new. */
static int frame_of(struct pystacks *py, const struct msprof_py_frame *f,
		    uint32_t *id)
{
	struct { uint64_t code; int64_t instr; } k = { f->code, f->instr };
	uint64_t h = keyhash(&py->key, &k, sizeof(k));
	struct pyframe *nf;
	uint32_t v;

	if (!idmap_get(&py->frame_at, h, &v) && py->frames[v].code == f->code &&
	    py->frames[v].instr == f->instr) {
		*id = v;
		return 0;
	}
	nf = growarr_push((void **)&py->frames, &py->nframes, &py->cap_frames,
			  sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	*nf = (struct pyframe){ .code = f->code, .instr = f->instr,
				.owner = f->owner, .text = py->unknown_text };
	*id = (uint32_t)(py->nframes - 1);
	return idmap_put(&py->frame_at, h, *id);
}

/* The chain of ids[0..n), added if new. */
static int chain_of(struct pystacks *py, const uint32_t *ids, size_t n,
		    bool cut, uint32_t *chain)
{
	uint64_t h = keyhash(&py->key, ids, n * sizeof(*ids)) ^ cut;
	struct pychain *c;
	uint32_t v, *slot;
	size_t i;

	if (!idmap_get(&py->chain_at, h, &v) && py->chains[v].n == n &&
	    py->chains[v].cut == cut &&
	    !memcmp(py->pool + py->chains[v].first, ids, n * sizeof(*ids))) {
		*chain = v;
		return 0;
	}
	for (i = 0; i < n; i++) {
		slot = growarr_push((void **)&py->pool, &py->npool, &py->cap_pool,
				    sizeof(*slot));
		if (!slot)
			return -ENOMEM;
		*slot = ids[i];
	}
	c = growarr_push((void **)&py->chains, &py->nchains, &py->cap_chains,
			 sizeof(*c));
	if (!c)
		return -ENOMEM;
	*c = (struct pychain){ .first = (uint32_t)(py->npool - n),
			       .n = (uint16_t)n, .cut = cut };
	*chain = (uint32_t)(py->nchains - 1);
	return idmap_put(&py->chain_at, h, *chain);
}

int pystacks_add_stack(struct pystacks *py, const struct msprof_pystack_event *e,
		       size_t len)
{
	uint32_t ids[MSPROF_PY_MAX_DEPTH], chain;
	size_t n = (len - MSPROF_PYSTACK_HEAD) / sizeof(e->frames[0]), i;
	int err = ensure_key(py);

	if (err)
		return err;
	if (n > e->nframes)
		n = e->nframes;
	if (e->stack_id < MSPROF_PYSTACK_FIRST || !n)
		return 0;
	for (i = 0; i < n; i++) {
		err = frame_of(py, &e->frames[i], &ids[i]);
		if (err)
			return err;
	}
	err = chain_of(py, ids, n, e->flags & MSPROF_PYSTACK_CUT, &chain);
	return err ?: idmap_put(&py->by_id, e->stack_id, chain);
}

int pystacks_add_code(struct pystacks *py, const struct msprof_pycode_rec *r,
		      size_t len)
{
	size_t body = len - sizeof(*r);
	struct pycode *c;
	int err = ensure_key(py);
	uint32_t v;

	if (err)
		return err;
	if ((size_t)r->file_len + r->name_len + r->table_len > body ||
	    !idmap_get(&py->code_at, r->code, &v))
		return 0;	/* a record cut short, or a code read twice */
	c = growarr_push((void **)&py->codes, &py->ncodes, &py->cap_codes,
			 sizeof(*c));
	if (!c)
		return -ENOMEM;
	*c = (struct pycode){ .firstlineno = r->firstlineno, .code_off = r->code_off,
			      .firsttraceable = r->firsttraceable, .minor = r->minor,
			      .state = r->state, .table_len = r->table_len };
	err = strtab_intern(&py->text, r->data, r->file_len, &c->file);
	if (!err)
		err = strtab_intern(&py->text, r->data + r->file_len, r->name_len,
				    &c->name);
	if (!err && r->table_len) {
		c->table = malloc(r->table_len);
		if (!c->table)
			err = -ENOMEM;
		else
			memcpy(c->table, r->data + r->file_len + r->name_len,
			       r->table_len);
	}
	if (err) {
		py->ncodes--;
		free(c->table);
		return err;
	}
	return idmap_put(&py->code_at, r->code, (uint32_t)(py->ncodes - 1));
}

/*
 * Whether CPython itself would leave the frame out: 3.11 on, a frame not
 * of a generator that has not reached its first traceable instruction.
 */
static bool not_begun(const struct pycode *c, const struct pyframe *f)
{
	return c->minor >= 11 && f->owner != 1 &&
	       (f->instr - (int32_t)c->code_off) / 2 < (int32_t)c->firsttraceable;
}

static int name_frame(struct pystacks *py, struct pyframe *f)
{
	char text[TEXT_MAX];
	const struct pycode *c;
	uint32_t v;
	int line, n;

	if (idmap_get(&py->code_at, f->code, &v) ||
	    py->codes[v].state != MSPROF_PYCODE_OK) {
		py->unknown++;
		return 0;
	}
	c = &py->codes[v];
	f->hidden = not_begun(c, f);
	line = pyline_of(c->minor, c->table, c->table_len, c->firstlineno,
			 c->code_off, f->instr);
	n = snprintf(text, sizeof(text), "%s(%d): %s",
		     strtab_str(&py->text, c->file), line,
		     strtab_str(&py->text, c->name));
	return strtab_intern(&py->text, text,
			     n < (int)sizeof(text) ? (size_t)n : sizeof(text) - 1,
			     &f->text);
}

uint32_t pystacks_chain(const struct pystacks *py, uint64_t stack_id)
{
	uint32_t v;

	if (stack_id < MSPROF_PYSTACK_FIRST || idmap_get(&py->by_id, stack_id, &v))
		return 0;
	return v;
}

bool pystacks_frame(const struct pystacks *py, uint32_t chain, size_t i,
		    uint32_t *text)
{
	const struct pychain *c = &py->chains[chain];

	if (i >= c->n)
		return false;
	*text = py->frames[py->pool[c->first + i]].text;
	return true;
}

/*
 * Each chain's frames as shown: those CPython would leave out, known only
 * once their code objects are in, are dropped from it.
 */
static void drop_hidden(struct pystacks *py)
{
	size_t i, k, n;

	for (i = 1; i < py->nchains; i++) {
		uint32_t *f = py->pool + py->chains[i].first;

		for (k = 0, n = 0; k < py->chains[i].n; k++)
			if (!py->frames[f[k]].hidden)
				f[n++] = f[k];
		py->chains[i].n = (uint16_t)n;
	}
}

int pystacks_finish(struct pystacks *py)
{
	size_t i;
	int err;

	for (i = 0; i < py->nframes; i++) {
		err = name_frame(py, &py->frames[i]);
		if (err)
			return err;
	}
	drop_hidden(py);
	return 0;
}

void pystacks_free(struct pystacks *py)
{
	size_t i;

	for (i = 0; i < py->ncodes; i++)
		free(py->codes[i].table);
	free(py->codes);
	free(py->frames);
	free(py->pool);
	free(py->chains);
	idmap_free(&py->by_id);
	idmap_free(&py->code_at);
	idmap_free(&py->frame_at);
	idmap_free(&py->chain_at);
	strtab_free(&py->text);
	memset(py, 0, sizeof(*py));
}
