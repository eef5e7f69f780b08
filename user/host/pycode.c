// SPDX-License-Identifier: MIT
/*
 * Code objects read from a target for its Python stacks.  Every byte is
 * the task's: lengths are capped, a pointer that does not read leaves the
 * code object unknown, and one that is no code object (freed, reused) is
 * said to be gone, never guessed at.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proc/procmem.h"
#include "pycode.h"

#define BATCH PYCODE_BATCH
#define SEEN_SLOTS (PYCODE_MAX_SEEN * 2)
/* The larger of the versions' PyCompactUnicodeObject, and bytes' head. */
#define STR_HEAD 0x48
#define BYTES_HEAD 0x20
#define CODE_MAX 0x200

int pycodes_new(struct pycodes **out, const struct pyruntime *rt)
{
	struct pycodes *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->seen = calloc(SEEN_SLOTS, sizeof(*p->seen));
	if (!p->seen) {
		free(p);
		return -ENOMEM;
	}
	p->rt = *rt;
	*out = p;
	return 0;
}

void pycodes_free(struct pycodes *p)
{
	if (!p)
		return;
	free(p->seen);
	free(p);
}

/* Whether code is new (and now seen); false past the cap too. */
static bool first_sight(struct pycodes *p, uint64_t code)
{
	uint64_t h = (code >> 4) * 0x9e3779b97f4a7c15ull, i;

	for (i = 0; i < SEEN_SLOTS; i++) {
		uint64_t *slot = &p->seen[(h + i) & (SEEN_SLOTS - 1)];

		if (*slot == code)
			return false;
		if (*slot)
			continue;
		if (p->nseen >= PYCODE_MAX_SEEN) {
			p->past_cap++;
			return false;
		}
		*slot = code;
		p->nseen++;
		return true;
	}
	return false;
}

static struct procmem_range span(uint64_t addr, uint32_t len)
{
	return (struct procmem_range){ .addr = addr, .len = len };
}

static uint64_t u64_at(const uint8_t *b, uint32_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static uint32_t u32_at(const uint8_t *b, uint32_t off)
{
	uint32_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* One code object's reading, through three rounds of reads. */
struct code_read {
	uint64_t str[2];	/* filename, name objects */
	uint64_t table;		/* line table bytes object */
	uint32_t len[3];	/* bytes of each to read in the last round */
	uint32_t kind[2];	/* 1, 2 or 4 bytes a character */
	uint32_t data_off[2];
	struct msprof_pycode_rec rec;	/* last: its text follows it in a record */
};

/* Where a string's text is and how long: 0 if msprof cannot read it. */
static void string_span(const struct pycodes *p, struct code_read *c, int i,
			const uint8_t *h)
{
	uint32_t state = u32_at(h, 0x20), kind = (state >> 2) & 7;
	uint64_t n = u64_at(h, 0x10);
	uint32_t ascii = p->rt.off.ascii_size;

	c->len[i] = 0;
	if (!(state & 0x20) || (kind != 1 && kind != 2 && kind != 4))
		return;		/* not compact: none of a code object's names */
	c->kind[i] = kind;
	c->data_off[i] = state & 0x40 ? ascii : ascii + (ascii == 0x30 ? 0x18 : 0x10);
	if (n > MSPROF_PYCODE_NAME_MAX / 4)
		n = MSPROF_PYCODE_NAME_MAX / 4;
	c->len[i] = (uint32_t)n * kind;
}

/* Text in kind-byte characters as UTF-8, capped; its length. */
static uint16_t to_utf8(char *out, const uint8_t *in, uint32_t len,
			uint32_t kind)
{
	uint32_t i, ch, n = 0;

	for (i = 0; i + kind <= len && n + 4 <= MSPROF_PYCODE_NAME_MAX; i += kind) {
		ch = kind == 1 ? in[i] : kind == 2 ? (uint32_t)(in[i] | in[i + 1] << 8) :
		     u32_at(in, i);
		if (ch < 0x80) {
			out[n++] = (char)ch;
		} else if (ch < 0x800) {
			out[n++] = (char)(0xc0 | ch >> 6);
			out[n++] = (char)(0x80 | (ch & 0x3f));
		} else if (ch < 0x10000) {
			out[n++] = (char)(0xe0 | ch >> 12);
			out[n++] = (char)(0x80 | ((ch >> 6) & 0x3f));
			out[n++] = (char)(0x80 | (ch & 0x3f));
		} else if (ch < 0x110000) {
			out[n++] = (char)(0xf0 | ch >> 18);
			out[n++] = (char)(0x80 | ((ch >> 12) & 0x3f));
			out[n++] = (char)(0x80 | ((ch >> 6) & 0x3f));
			out[n++] = (char)(0x80 | (ch & 0x3f));
		} else {
			out[n++] = '?';
		}
	}
	return (uint16_t)n;
}

static uint8_t head_buf[BATCH * CODE_MAX];
static uint8_t data_buf[BATCH * (2 * MSPROF_PYCODE_NAME_MAX + MSPROF_PYCODE_TABLE_MAX)];

/* Round 1: the code objects themselves. */
static int read_codes(struct pycodes *p, struct code_read *c, unsigned int n)
{
	const struct pyoffsets *o = &p->rt.off;
	struct procmem_range r[BATCH] = { 0 };
	uint8_t ok[BATCH];
	unsigned int i;
	int err;

	for (i = 0; i < n; i++)
		r[i] = span(c[i].rec.code, o->co_size);
	err = procmem_read(p->rt.pid, r, n, head_buf, sizeof(head_buf), ok);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		const uint8_t *h = head_buf + i * o->co_size;

		if (!ok[i]) {
			c[i].rec.state = MSPROF_PYCODE_UNREAD;
			continue;
		}
		if (u64_at(h, 8) != p->rt.code_type) {
			c[i].rec.state = MSPROF_PYCODE_GONE;
			continue;
		}
		c[i].rec.firstlineno = (int32_t)u32_at(h, o->co_firstlineno);
		c[i].rec.code_off = o->co_firsttraceable == MSPROF_PY_NONE ? 0 : o->co_code;
		c[i].rec.firsttraceable = o->co_firsttraceable == MSPROF_PY_NONE ? 0 :
					  u32_at(h, o->co_firsttraceable);
		c[i].str[0] = u64_at(h, o->co_filename);
		c[i].str[1] = u64_at(h, o->co_qualname != MSPROF_PY_NONE ?
					o->co_qualname : o->co_name);
		c[i].table = u64_at(h, o->co_linetable);
	}
	return 0;
}

/* Round 2: the heads of its names and line table. */
static int read_heads(struct pycodes *p, struct code_read *c, unsigned int n)
{
	struct procmem_range r[BATCH * 3] = { 0 };
	uint8_t ok[BATCH * 3];
	unsigned int i, k = 0;
	int err;

	for (i = 0; i < n; i++) {
		r[k++] = span(c[i].str[0], STR_HEAD);
		r[k++] = span(c[i].str[1], STR_HEAD);
		r[k++] = span(c[i].table, BYTES_HEAD);
	}
	err = procmem_read(p->rt.pid, r, k, head_buf, sizeof(head_buf), ok);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		const uint8_t *h = head_buf + i * (2 * STR_HEAD + BYTES_HEAD);
		uint64_t size;

		if (c[i].rec.state)
			continue;
		if (!ok[3 * i] || !ok[3 * i + 1]) {
			c[i].rec.state = MSPROF_PYCODE_UNREAD;
			continue;
		}
		string_span(p, &c[i], 0, h);
		string_span(p, &c[i], 1, h + STR_HEAD);
		size = ok[3 * i + 2] ? u64_at(h + 2 * STR_HEAD, 0x10) : 0;
		c[i].len[2] = size <= MSPROF_PYCODE_TABLE_MAX ? (uint32_t)size : 0;
	}
	return 0;
}

static int write_code(struct pycodes *p, struct recfile *f,
		      struct code_read *c, const uint8_t *data, bool ok)
{
	static char body[2 * MSPROF_PYCODE_NAME_MAX + MSPROF_PYCODE_TABLE_MAX];
	struct msprof_pycode_rec *rec = &c->rec;
	size_t len = 0;

	rec->minor = (uint8_t)p->rt.off.minor;
	if (!rec->state && !ok)
		rec->state = MSPROF_PYCODE_UNREAD;
	if (!rec->state) {
		rec->file_len = to_utf8(body, data, c->len[0], c->kind[0]);
		rec->name_len = to_utf8(body + rec->file_len, data + c->len[0],
					c->len[1], c->kind[1]);
		len = rec->file_len + rec->name_len;
		rec->table_len = (uint16_t)c->len[2];
		memcpy(body + len, data + c->len[0] + c->len[1], c->len[2]);
		len += c->len[2];
	} else {
		p->unknown++;
	}
	return recfile_append(f, MSPROF_REC_PYCODE, rec, sizeof(*rec), body, len);
}

/* Round 3: the text and table, each record written. */
static int read_data(struct pycodes *p, struct recfile *f, struct code_read *c,
		     unsigned int n)
{
	struct procmem_range r[BATCH * 3] = { 0 };
	uint8_t ok[BATCH * 3] = { 0 };
	unsigned int i, k = 0, j;
	size_t at = 0;
	int err = 0;

	for (i = 0; i < n; i++) {
		if (c[i].rec.state)
			continue;
		r[k++] = span(c[i].str[0] + c[i].data_off[0], c[i].len[0]);
		r[k++] = span(c[i].str[1] + c[i].data_off[1], c[i].len[1]);
		r[k++] = span(c[i].table + BYTES_HEAD, c[i].len[2]);
	}
	if (k)
		err = procmem_read(p->rt.pid, r, k, data_buf, sizeof(data_buf), ok);
	if (err)
		return err;
	for (i = 0, k = 0; !err && i < n; i++) {
		bool read = !c[i].rec.state, whole = true;

		for (j = 0; read && j < 3; j++)
			whole &= ok[k + j] || !r[k + j].len;
		err = write_code(p, f, &c[i], data_buf + at, whole);
		if (read) {
			at += c[i].len[0] + c[i].len[1] + c[i].len[2];
			k += 3;
		}
	}
	return err;
}

int pycodes_flush(struct pycodes *p, struct recfile *f)
{
	static struct code_read c[BATCH];
	unsigned int i, n = p->npending;
	int err;

	if (!n)
		return 0;
	memset(c, 0, n * sizeof(c[0]));
	for (i = 0; i < n; i++)
		c[i].rec.code = p->pending[i];
	p->npending = 0;
	err = read_codes(p, c, n);
	if (!err)
		err = read_heads(p, c, n);
	if (!err)
		return read_data(p, f, c, n);
	/* The reader stalled or failed: these stay unknown, and say so. */
	for (i = 0, err = 0; !err && i < n; i++) {
		c[i].rec.state = MSPROF_PYCODE_UNREAD;
		err = write_code(p, f, &c[i], NULL, false);
	}
	return err;
}

/*
 * The stack as the task's code sees it: shim frames (3.12 and 3.13 put one
 * at each C to Python boundary) dropped, cut at the depth asked for.
 */
static void clean_stack(const struct pycodes *p, struct msprof_pystack_event *e)
{
	unsigned int i, n = 0;

	for (i = 0; i < e->nframes; i++) {
		if (p->rt.off.owner_shim != 0xff &&
		    e->frames[i].owner == p->rt.off.owner_shim)
			continue;
		if (n == p->rt.depth) {
			e->flags |= MSPROF_PYSTACK_CUT;
			break;
		}
		e->frames[n++] = e->frames[i];
	}
	e->nframes = (uint16_t)n;
}

int pycodes_add_stack(struct pycodes *p, struct recfile *f,
		      const struct msprof_pystack_event *in, size_t size)
{
	static struct msprof_pystack_event e;
	size_t n = in->nframes, i;
	int err;

	if (size < MSPROF_PYSTACK_HEAD || !n || n > MSPROF_PY_MAX_DEPTH ||
	    (size - MSPROF_PYSTACK_HEAD) / sizeof(in->frames[0]) < n)
		return 0;
	memcpy(&e, in, MSPROF_PYSTACK_HEAD + n * sizeof(in->frames[0]));
	clean_stack(p, &e);
	err = recfile_append(f, MSPROF_REC_PYSTACK, &e,
			     MSPROF_PYSTACK_HEAD + e.nframes * sizeof(e.frames[0]),
			     NULL, 0);
	if (err)
		return err;
	p->stacks++;
	for (i = 0; i < e.nframes; i++) {
		if (!first_sight(p, e.frames[i].code))
			continue;
		p->pending[p->npending++] = e.frames[i].code;
		if (p->npending == BATCH) {
			err = pycodes_flush(p, f);
			if (err)
				return err;
		}
	}
	return 0;
}
