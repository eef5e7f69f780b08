// SPDX-License-Identifier: MIT
/*
 * The host system tables of msprof's db (db_assembler.cpp): a row per
 * interval at its start, in epoch ns; CPU_USAGE without the average, the
 * rates in B/s; rows before the session began left out, as msprof's do.
 */
#include "db_parts.h"
#include "hostsys.h"

/* The interval's start as the db has it, or -1 if before the session. */
static int64_t at(struct dbw *w, const struct hostsys_data *h, uint64_t raw)
{
	uint64_t ns = hostsys_epoch(h, raw);

	return ns < profmeta_epoch_ns(&w->p->meta, w->p->meta.start.mono_ns) ?
	       -1 : (int64_t)ns;
}

int db_hostsys_rows(struct dbw *w)
{
	const struct hostsys_data *h = w->p->hostsys;
	size_t i;
	int64_t ts;
	int err = 0;

	if (!h)
		return 0;
	for (i = 0; i < h->ncpu && !err; i++)
		if (h->cpu[i].cpu != HS_CPU_AVG && (ts = at(w, h, h->cpu[i].start)) >= 0)
			err = db_row_reals(w, T_CPU_USAGE, ts, (double[]){
				(double)h->cpu[i].cpu, h->cpu[i].usage }, 2);
	for (i = 0; i < h->nmem && !err; i++)
		if ((ts = at(w, h, h->mem[i].start)) >= 0)
			err = db_row_reals(w, T_HOST_MEM_USAGE, ts, &h->mem[i].usage, 1);
	for (i = 0; i < h->ndisk && !err; i++)
		if ((ts = at(w, h, h->disk[i].start)) >= 0)
			err = db_row_reals(w, T_HOST_DISK_USAGE, ts, (double[]){
				h->disk[i].read * 1024, h->disk[i].write * 1024,
				h->disk[i].usage }, 3);
	for (i = 0; i < h->nnet && !err; i++)
		if ((ts = at(w, h, h->net[i].start)) >= 0)
			err = db_row_reals(w, T_HOST_NETWORK_USAGE, ts, (double[]){
				h->net[i].usage, h->net[i].speed * 1024 }, 2);
	return err;
}
