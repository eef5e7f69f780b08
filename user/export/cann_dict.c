// SPDX-License-Identifier: MIT
/* The runtime's two dictionaries, type_info_dic and hash_dic (§2.9). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cann.h"

/*
 * Multiply-shift: the product's top bits, which every bit of the key
 * reaches (bits taken lower down are blind to the key's high bits, so
 * ids differing only there would all share a slot, whatever mul is).
 */
static uint32_t slot_of(const struct cann_dict *d, uint64_t key)
{
	return (uint32_t)((key * d->mul) >> (64 - __builtin_ctz(d->nslots)));
}

static int grow(struct cann_dict *d)
{
	struct cann_dict bigger = *d;
	uint32_t i, at;

	bigger.nslots = d->nslots ? d->nslots * 2 : 64;
	bigger.keys = calloc(bigger.nslots, sizeof(*bigger.keys));
	bigger.vals = calloc(bigger.nslots, sizeof(*bigger.vals));
	if (!bigger.keys || !bigger.vals) {
		free(bigger.keys);
		free(bigger.vals);
		return -ENOMEM;
	}
	/* The ids are the writer's: keyed, so that none can pile them up. */
	if (!d->nslots && getrandom(&bigger.mul, sizeof(bigger.mul), 0) !=
	    sizeof(bigger.mul))
		bigger.mul = 0x9e3779b97f4a7c15ull;
	bigger.mul |= 1;
	for (i = 0; i < d->nslots; i++) {
		if (!d->vals[i])
			continue;
		for (at = slot_of(&bigger, d->keys[i]); bigger.vals[at];
		     at = (at + 1) & (bigger.nslots - 1))
			;
		bigger.keys[at] = d->keys[i];
		bigger.vals[at] = d->vals[i];
	}
	free(d->keys);
	free(d->vals);
	*d = bigger;
	return 0;
}

/* A later line of the same key wins, as the analysis reads them. */
int cann_dict_put(struct cann_dict *d, uint64_t key, uint32_t id)
{
	uint32_t at;
	int err;

	if ((d->n + 1) * 2 > d->nslots) {
		err = grow(d);
		if (err)
			return err;
	}
	for (at = slot_of(d, key); d->vals[at] && d->keys[at] != key;
	     at = (at + 1) & (d->nslots - 1))
		;
	if (!d->vals[at])
		d->n++;
	d->keys[at] = key;
	d->vals[at] = id + 1;
	return 0;
}

uint32_t cann_dict_get(const struct cann_dict *d, uint64_t key)
{
	uint32_t at;

	if (!d->nslots)
		return 0;
	for (at = slot_of(d, key); d->vals[at]; at = (at + 1) & (d->nslots - 1))
		if (d->keys[at] == key)
			return d->vals[at];
	return 0;
}

void cann_dict_free(struct cann_dict *d)
{
	free(d->keys);
	free(d->vals);
	memset(d, 0, sizeof(*d));
}

bool cann_level_known(uint16_t level)
{
	return cann_level_name(level) != NULL;
}

const char *cann_level_name(uint16_t level)
{
	switch (level) {
	case CANN_LEVEL_PYTORCH_TX: return "pytorch_tx";
	case CANN_LEVEL_PTA: return "pta";
	case CANN_LEVEL_MSPROFTX: return "msproftx";
	case CANN_LEVEL_ACL: return "acl";
	case CANN_LEVEL_MODEL: return "model";
	case CANN_LEVEL_NODE: return "node";
	case CANN_LEVEL_AICPU: return "aicpu";
	case CANN_LEVEL_HCCL: return "communication";
	case CANN_LEVEL_RUNTIME: return "runtime";
	}
	return NULL;
}

/* A decimal u64 of [s, end) that is all digits. */
static bool decimal(const char *s, const char *end, uint64_t *v)
{
	uint64_t x = 0;

	if (s == end || end - s > 20)
		return false;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return true;
}

struct dict_ctx {
	struct profdata *p;
	struct cann_dict *d;
	bool types;
};

/* "<key>:<string>", split at the first ':' (the string may hold more). */
static int dict_line(const void *rec, const struct cann_src *s, void *ctx)
{
	const struct dict_ctx *dc = ctx;
	const char *line = rec, *colon = strchr(line, ':'), *us;
	uint64_t key, level, type;
	uint32_t id;
	int err;

	if (!colon) {
		cann_fault(s, "a dictionary line without ':'");
		return 0;
	}
	if (dc->types) {
		us = memchr(line, '_', (size_t)(colon - line));
		if (!us || !decimal(line, us, &level) || !decimal(us + 1, colon, &type) ||
		    level > UINT16_MAX || type > UINT32_MAX ||
		    !cann_level_known((uint16_t)level)) {
			cann_fault(s, "a type_info_dic key not <known level>_<type>");
			return 0;
		}
		key = level << 32 | type;
	} else if (!decimal(line, colon, &key)) {
		cann_fault(s, "a hash_dic id not a decimal number");
		return 0;
	}
	err = strtab_intern(&dc->p->names, colon + 1, strlen(colon + 1), &id);
	return err ?: cann_dict_put(dc->d, key, id);
}

int cann_dicts_load(struct profdata *p, struct cann *c)
{
	struct dict_ctx types = { p, &c->types, true }, hashes = { p, &c->hashes, false };

	return cann_each_line(p, "host/data", "additional.type_info_dic",
			      dict_line, &types) ?:
	       cann_each_line(p, "host/data", "additional.hash_dic",
			      dict_line, &hashes);
}

const char *cann_hash_str(const struct profdata *p, uint64_t id)
{
	uint32_t v = p->cann ? cann_dict_get(&p->cann->hashes, id) : 0;

	return v ? strtab_str(&p->names, v - 1) : NULL;
}

const char *cann_type_str(const struct profdata *p, uint16_t level, uint32_t type)
{
	uint32_t v = p->cann ? cann_dict_get(&p->cann->types,
					     (uint64_t)level << 32 | type) : 0;

	return v ? strtab_str(&p->names, v - 1) : NULL;
}
