// SPDX-License-Identifier: MIT
/*
 * The stars_soc records waiting for their other half (§3.1): an end pairs
 * with the latest start of its (stream, task id) not after it.  Huawei's
 * analysis sorts each (stream, task id) by time first; read as they come,
 * records out of that order wait too: an end before any start of its ids
 * waits for one not after it.  Of two starts with no end between, the
 * earlier is a fault of its own; of two ends with no start, the later.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cann_device.h"

static size_t slot_of(const struct stars_table *t, const struct stars_open *o)
{
	uint64_t k = (uint64_t)o->stream << 33 | (uint64_t)o->task << 1 | o->end;

	/* The product's top bits, as in cann_dict.c. */
	return (size_t)((k * t->mul) >> (64 - __builtin_ctzll(t->nslots)));
}

static size_t find(const struct stars_table *t, const struct stars_open *o)
{
	size_t at;

	for (at = slot_of(t, o); t->v[at].used; at = (at + 1) & (t->nslots - 1))
		if (t->v[at].stream == o->stream && t->v[at].task == o->task &&
		    t->v[at].end == o->end)
			break;
	return at;
}

static int grow(struct stars_table *t)
{
	struct stars_table b = *t;
	size_t i;

	b.nslots = t->nslots ? t->nslots * 2 : 256;
	b.v = calloc(b.nslots, sizeof(*b.v));
	if (!b.v)
		return -ENOMEM;
	/* The ids are the device file's: keyed, so none can pile them up. */
	if (!t->nslots && getrandom(&b.mul, sizeof(b.mul), 0) != sizeof(b.mul))
		b.mul = 0x9e3779b97f4a7c15ull;
	b.mul |= 1;
	for (i = 0; i < t->nslots; i++)
		if (t->v[i].used)
			b.v[find(&b, &t->v[i])] = t->v[i];
	free(t->v);
	*t = b;
	return 0;
}

int stars_open_put(struct stars_table *t, const struct stars_open *o,
		   struct stars_open *was)
{
	size_t at;
	int err;

	if ((t->n + 1) * 2 > t->nslots) {
		err = grow(t);
		if (err)
			return err;
	}
	at = find(t, o);
	if (t->v[at].used) {
		*was = t->v[at];
		t->v[at] = *o;
		t->v[at].used = true;
		return 1;
	}
	t->v[at] = *o;
	t->v[at].used = true;
	t->n++;
	return 0;
}

/* Linear probing's deletion: later entries of the run move back. */
bool stars_open_take(struct stars_table *t, const struct stars_open *key,
		     struct stars_open *o)
{
	size_t at, next, home, mask = t->nslots - 1;

	if (!t->nslots)
		return false;
	at = find(t, key);
	if (!t->v[at].used)
		return false;
	*o = t->v[at];
	t->v[at].used = false;
	t->n--;
	for (next = (at + 1) & mask; t->v[next].used; next = (next + 1) & mask) {
		home = slot_of(t, &t->v[next]);
		/* It stays if its home lies cyclically in (at, next]. */
		if (at <= next ? (home > at && home <= next) : (home > at || home <= next))
			continue;
		t->v[at] = t->v[next];
		t->v[next].used = false;
		at = next;
	}
	return true;
}

void stars_fault(struct dev_load *d, const struct cann_src *s,
		 const struct stars_open *o, const char *what)
{
	struct cann_src at = *s;

	(void)d;
	at.off = o->off;
	cann_fault(&at, what);
}

void stars_open_flush(struct dev_load *d)
{
	struct cann_src s = { .file = d->open.file, .p = d->p };
	size_t i;

	for (i = 0; i < d->open.nslots; i++)
		if (d->open.v[i].used)
			stars_fault(d, &s, &d->open.v[i], d->open.v[i].end ?
				    "an end without its start" : "a start without its end");
}

void stars_open_free(struct stars_table *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}
