/* SPDX-License-Identifier: MIT */
/*
 * A CANN runtime's raw files in a PROF_ directory (host/data/, the
 * device_N/data/ folders), read into profdata's model: the reference
 * sheet cann-raw-formats.md's facts; its section numbers are used below.
 * Every byte is the writer's: each fault costs its own record and is kept
 * once as a problem of the window.
 */
#ifndef MSPROF_CANN_H
#define MSPROF_CANN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msprof/cann_raw.h"
#include "profdata.h"

/* The runtime's raw files, if any, into p; 0 or -ENOMEM. */
int cann_load(struct profdata *p);
void cann_free(struct cann *c);

/* One API the runtime reported (§2.1), on our clock. */
struct cann_call {
	uint64_t begin_ns, end_ns;
	uint32_t tid;
	uint16_t level;		/* enum cann_level */
	uint32_t type;
	const char *type_name;	/* type_info_dic's; NULL: not named */
	const char *item;	/* hash_dic's string of item_id; NULL: none */
	uint64_t item_id;
	uint64_t conn;		/* its place among the api_event records, + 1,
				 * after our calls' connection ids */
	uint64_t ours;		/* our call's connection id, if eBPF recorded
				 * it too (the timeline has ours); else 0 */
};

/* The room cann_call_name() may need for a type's number. */
#define CANN_NUM_LEN	12

/*
 * Walks the runtime's API records (not its events) in file order; a
 * non-zero return of fn ends the walk with it.  Faults were counted at load.
 */
typedef int (*cann_call_fn)(const struct cann_call *c, void *ctx);
int cann_each_call(const struct profdata *p, cann_call_fn fn, void *ctx);
/*
 * The call's name as msprof shows it after its level's prefix: a
 * communication call's task name, else its type's name, else its type's
 * number; num always holds the number (the timeline's Mode falls back on it).
 */
const char *cann_call_name(const struct cann_call *c, char num[CANN_NUM_LEN]);
/* How msprof names a level ("acl", "node", ...). */
const char *cann_level_name(uint16_t level);

/* ---- between the reader's files ---- */

/* A linear map of clocks: out = out0 + (in - in0) * rate_q32 >> 32. */
struct cann_lin {
	uint64_t in0, out0;
	uint64_t rate_q32;	/* 0: out = out0 + (in - in0) */
};

static inline uint64_t cann_lin_map(const struct cann_lin *l, uint64_t in)
{
	int64_t d = (int64_t)(in - l->in0);

	if (l->rate_q32)
		d = (int64_t)(((__int128)d * (__int128)l->rate_q32 +
			       ((__int128)1 << 31)) >> 32);
	return l->out0 + (uint64_t)d;
}

#define CANN_MAX_DEVICES	64

/* A u64 -> string id map (dictionaries). */
struct cann_dict {
	uint64_t *keys;
	uint32_t *vals;		/* id in profdata.names, + 1; 0 empty */
	uint32_t n, nslots;
	uint64_t mul;		/* odd, random: the hash */
};

struct cann {
	struct cann_lin host;	/* host timestamp -> runtime raw ns */
	struct cann_lin mono;	/* runtime raw ns -> our CLOCK_MONOTONIC */
	struct cann_lin dev[CANN_MAX_DEVICES];	/* device ticks -> raw ns */
	bool dev_known[CANN_MAX_DEVICES];
	/*
	 * For the AI Core Freq track: info.json.N's aic_frequency (MHz; 0:
	 * none) and end_info.N's collectionTimeEnd (epoch ns; 0: none).
	 */
	double aic_mhz[CANN_MAX_DEVICES];
	uint64_t dev_end_epoch_ns[CANN_MAX_DEVICES];
	struct cann_dict types;	/* level << 32 | type -> name */
	struct cann_dict hashes;	/* hash_dic */
	uint64_t ncalls;	/* API records, for numbering */
	bool has_api;
	uint64_t last_ns;	/* the latest end of its API calls, our clock */
};

/* Device n's tick t to our clock. */
static inline uint64_t cann_dev_ns(const struct cann *c, unsigned int n, uint64_t t)
{
	return cann_lin_map(&c->mono, cann_lin_map(&c->dev[n], t));
}

/* Host timestamp to our clock. */
static inline uint64_t cann_host_ns(const struct cann *c, uint64_t t)
{
	return cann_lin_map(&c->mono, cann_lin_map(&c->host, t));
}

/* Where a record came from, for its problems. */
struct cann_src {
	const char *file;	/* relative to the PROF_ directory */
	uint64_t off;
	bool aging;
	bool quiet;		/* a walk after the load: faults were counted */
	struct profdata *p;
};

void cann_fault(const struct cann_src *s, const char *what);
/* A fault whose record is shown all the same (exit status 0). */
void cann_note(const struct cann_src *s, const char *what);

/*
 * Each whole record of size recsz of the files dir/(aging|unaging).<kind>
 * .slice_<n> (dir/<kind>.slice_<n> when prefix is false, e.g. device
 * files), aging first, each group by slice number (§1).
 */
typedef int (*cann_rec_fn)(const void *rec, const struct cann_src *s, void *ctx);
int cann_each_rec(struct profdata *p, const char *dir, const char *kind,
		  bool prefix, size_t recsz, bool quiet, cann_rec_fn fn, void *ctx);
/* Each line of the text files as cann_each_rec() finds them. */
int cann_each_line(struct profdata *p, const char *dir, const char *kind,
		   cann_rec_fn fn, void *ctx);

int cann_dict_put(struct cann_dict *d, uint64_t key, uint32_t id);
/* The string's id, + 1; 0: not there. */
uint32_t cann_dict_get(const struct cann_dict *d, uint64_t key);
void cann_dict_free(struct cann_dict *d);
int cann_dicts_load(struct profdata *p, struct cann *c);
/* A dictionary string of the window, or NULL. */
const char *cann_hash_str(const struct profdata *p, uint64_t id);
const char *cann_type_str(const struct profdata *p, uint16_t level, uint32_t type);

int cann_clocks_load(struct profdata *p, struct cann *c);
/* The devices' files (stars_soc, ts_track), matched to p->tasks[from...]. */
int cann_devices_load(struct profdata *p, struct cann *c, size_t from);
/* Loads the host's task_tracks and what binds to them. */
int cann_host_load(struct profdata *p, struct cann *c);

/* A valid header of a host record: magic and level (§2.1, §2.2). */
bool cann_level_known(uint16_t level);

#endif
