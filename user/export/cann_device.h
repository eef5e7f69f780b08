/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_CANN_DEVICE_H
#define MSPROF_CANN_DEVICE_H

#include "cann.h"

struct flip {
	uint32_t stream;
	uint64_t at;		/* device ticks */
};

/*
 * A start record waiting for its end, or an end that came before its
 * start (records out of time order within a (stream, task id)).
 */
struct stars_open {
	uint64_t at;		/* device ticks */
	uint64_t off;		/* its place in its file, for a fault */
	uint32_t stream, task;
	uint8_t sqe;
	bool end;		/* an end waiting for its start */
	bool used;		/* a slot of the table that holds one */
};

/* The records waiting, by (stream, task id, end): few at a time, in flight. */
struct stars_table {
	struct stars_open *v;
	size_t n, nslots;
	uint64_t mul;
	char file[2 * NAME_MAX + 8];	/* of the starts kept, for their faults */
};

struct dev_load {
	struct profdata *p;
	struct cann *c;
	unsigned int dev;
	const struct cann_lin *lin;
	size_t from, nhost;	/* the host tasks, sorted by key */
	struct flip *flips;	/* by stream, then time */
	size_t nflips, cap_flips;
	struct stars_table open;
	uint64_t tracked[2048 / 64];	/* streams with a task matched yet */
};

/*
 * Keeps o; 1 when it replaced a record of the same ids and kind (then in
 * *was), 0, or -ENOMEM.
 */
int stars_open_put(struct stars_table *t, const struct stars_open *o,
		   struct stars_open *was);
/* Takes the record of key's ids and kind out into *o; false if none. */
bool stars_open_take(struct stars_table *t, const struct stars_open *key,
		     struct stars_open *o);
/* The starts left without an end and the ends without a start: faults. */
void stars_open_flush(struct dev_load *d);
void stars_open_free(struct stars_table *t);
void stars_fault(struct dev_load *d, const struct cann_src *s,
		 const struct stars_open *o, const char *what);

const char *cann_sqe_name(unsigned int sqe);
void cann_stars_ids(uint16_t stream, uint16_t task, uint32_t *s, uint32_t *t);

#endif
