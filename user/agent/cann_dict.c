// SPDX-License-Identifier: MIT
/* type_info_dic and hash_dic: what a runtime named, for every window. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cann_dict.h"
#include "cann_slice.h"
#include "common/keyhash.h"
#include "msprof/cann_raw.h"

struct dict_type {
	uint16_t level;
	uint32_t type;
	char name[CANN_DICT_NAME];
};

/* An open-addressed slot, found by id; s NULL: empty. */
struct dict_str {
	uint64_t id;
	char *s;
};

static pthread_mutex_t dict_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dict_type types[CANN_DICT_TYPES];
static size_t ntypes;
static struct dict_str *strs;
static size_t str_slots;	/* a power of two, over twice nstrs */
static size_t nstrs;
static struct keyhash_key str_key;	/* random: the table's slots */
/* Fixed: the ids (any constant would do; these spell "msprof-hashdic00"). */
static const struct keyhash_key id_key = {
	{ 0x6d7370726f662d68ull, 0x61736864696330ull },
};
static bool defaults_done;

/*
 * What CANN's profiling library names itself, whatever the runtime
 * registers: the node, model and communication levels' types (§2.3).
 */
static const struct dict_type default_types[] = {
	{ CANN_LEVEL_NODE, CANN_NODE_LAUNCH, "launch" },
	{ CANN_LEVEL_NODE, CANN_NODE_BASIC_INFO, "node_basic_info" },
	{ CANN_LEVEL_NODE, CANN_NODE_TENSOR_INFO, "tensor_info" },
	{ CANN_LEVEL_NODE, 2, "fusion_op_info" },
	{ CANN_LEVEL_NODE, CANN_NODE_CONTEXT_ID_INFO, "context_id_info" },
	{ CANN_LEVEL_NODE, 9, "node_attr_info" },
	{ CANN_LEVEL_NODE, CANN_NODE_HCCL_OP_INFO, "hccl_op_info" },
	{ CANN_LEVEL_MODEL, 0, "graph_id_map" },
	{ CANN_LEVEL_MODEL, 1, "execute" },
	{ CANN_LEVEL_MODEL, 2, "load" },
	{ CANN_LEVEL_HCCL, CANN_HCCL_MASTER, "master" },
	{ CANN_LEVEL_HCCL, 0x010002, "slave" },
	{ CANN_LEVEL_HCCL, CANN_HCCL_INFO, "hccl_info" },
};

static bool printable_name(const char *s)
{
	size_t n = strnlen(s, CANN_DICT_NAME);

	if (!n || n == CANN_DICT_NAME)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* Under dict_lock. */
static int add_type(uint16_t level, uint32_t type, const char *name)
{
	size_t i;

	if (!printable_name(name))
		return -EINVAL;
	for (i = 0; i < ntypes; i++)
		if (types[i].level == level && types[i].type == type)
			break;
	if (i == CANN_DICT_TYPES)
		return -ENOSPC;
	if (i == ntypes)
		ntypes++;
	types[i].level = level;
	types[i].type = type;
	strcpy(types[i].name, name);
	return 0;
}

/* Under dict_lock: the defaults first, so that a runtime's name wins. */
static void add_defaults(void)
{
	size_t i;

	if (defaults_done)
		return;
	defaults_done = true;
	for (i = 0; i < sizeof(default_types) / sizeof(default_types[0]); i++)
		add_type(default_types[i].level, default_types[i].type,
			 default_types[i].name);
}

int cann_dict_add_type(uint16_t level, uint32_t type, const char *name)
{
	int err;

	pthread_mutex_lock(&dict_lock);
	add_defaults();
	err = add_type(level, type, name);
	pthread_mutex_unlock(&dict_lock);
	return err;
}

void cann_dict_type_name(uint16_t level, uint32_t type, char *out, size_t len)
{
	size_t i;

	pthread_mutex_lock(&dict_lock);
	add_defaults();
	snprintf(out, len, "%s", "");
	for (i = 0; i < ntypes; i++)
		if (types[i].level == level && types[i].type == type)
			snprintf(out, len, "%s", types[i].name);
	pthread_mutex_unlock(&dict_lock);
}

/* Under dict_lock: the slot of id, or the empty one where it would go. */
/*
 * The slot is the id's keyed hash: ids are the same in every process
 * (below), so a table placed by the id itself would let names chosen to
 * share low bits pile into one run.
 */
static struct dict_str *str_slot(uint64_t id)
{
	size_t i = (size_t)keyhash(&str_key, &id, sizeof(id)) & (str_slots - 1);

	while (strs[i].s && strs[i].id != id)
		i = (i + 1) & (str_slots - 1);
	return &strs[i];
}

/* Under dict_lock: room for one more string.  0 or -errno. */
static int str_room(void)
{
	struct dict_str *old = strs;
	size_t i, n = old ? str_slots : 0;

	if (nstrs == CANN_DICT_STRINGS)
		return -ENOSPC;
	if (old && (nstrs + 1) * 2 < str_slots)
		return 0;
	if (!old && keyhash_key_new(&str_key))
		return -EIO;
	str_slots = old ? str_slots * 2 : 1024;
	strs = calloc(str_slots, sizeof(*strs));
	if (!strs) {
		strs = old;
		str_slots = n;
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (old[i].s)
			*str_slot(old[i].id) = old[i];
	free(old);
	return 0;
}

/*
 * Under dict_lock.  An id is the string's hash under a fixed key, the
 * same in every process, as a runtime's are: every rank's hash_dic gives
 * a group name the same id, and msprof's op names carry its last digits,
 * which the cluster analysis matches across ranks.  Should another string
 * hold that id already, the next free id is taken, so every id names one
 * string.
 */
static uint64_t str_id(const char *s, size_t len)
{
	struct dict_str *slot;
	uint64_t id;
	char *copy;

	if (str_room())
		return 0;
	for (id = keyhash(&id_key, s, len) ?: 1;; id = id + 1 ?: 1) {
		slot = str_slot(id);
		if (!slot->s)
			break;
		if (strlen(slot->s) == len && !memcmp(slot->s, s, len))
			return id;
	}
	copy = strndup(s, len);
	if (!copy)
		return 0;
	slot->id = id;
	slot->s = copy;
	nstrs++;
	return id;
}

uint64_t cann_dict_hash(const char *s, size_t len)
{
	uint64_t id;

	if (!s || !len || len >= CANN_DICT_STRING || memchr(s, '\n', len) ||
	    memchr(s, '\r', len) || memchr(s, '\0', len))
		return 0;
	pthread_mutex_lock(&dict_lock);
	id = str_id(s, len);
	pthread_mutex_unlock(&dict_lock);
	return id;
}

/* One dictionary, a line a record: lines are never split across slices. */
static int write_lines(int dir, const char *base, uint64_t limit,
		       char *const *lines, size_t n)
{
	struct cann_slice s;
	size_t i;
	int err;

	err = cann_slice_init(&s, dir, base, limit);
	for (i = 0; i < n && !err; i++)
		err = cann_slice_put(&s, lines[i], strlen(lines[i]), 1);
	return cann_slice_close(&s) ?: err;
}

static void free_lines(char **lines, size_t n)
{
	while (n--)
		free(lines[n]);
	free(lines);
}

/* Under dict_lock: every entry as its line, in *out. */
static int dict_lines(bool hashes, char ***out, size_t *n)
{
	size_t i, max = hashes ? nstrs : ntypes;
	char **lines = calloc(max ?: 1, sizeof(*lines));
	int len;

	*n = 0;
	if (!lines)
		return -ENOMEM;
	for (i = 0; hashes ? i < str_slots : i < ntypes; i++) {
		if (hashes && !strs[i].s)
			continue;
		len = hashes ? asprintf(&lines[*n], "%llu:%s\n",
					(unsigned long long)strs[i].id, strs[i].s) :
			       asprintf(&lines[*n], "%u_%u:%s\n", types[i].level,
					types[i].type, types[i].name);
		if (len < 0) {
			free_lines(lines, *n);
			return -ENOMEM;
		}
		++*n;
	}
	*out = lines;
	return 0;
}

int cann_dict_write(int dir, uint64_t slice_limit)
{
	char **tl = NULL, **hl = NULL;
	size_t nt = 0, nh = 0;
	int err;

	/* Copied out: the runtime's threads must not wait for the disk. */
	pthread_mutex_lock(&dict_lock);
	add_defaults();
	err = dict_lines(false, &tl, &nt) ?: dict_lines(true, &hl, &nh);
	pthread_mutex_unlock(&dict_lock);
	if (!err)
		err = write_lines(dir, "unaging.additional.type_info_dic",
				  slice_limit, tl, nt);
	if (!err && nh)
		err = write_lines(dir, "unaging.additional.hash_dic",
				  slice_limit, hl, nh);
	if (tl)
		free_lines(tl, nt);
	if (hl)
		free_lines(hl, nh);
	return err;
}
