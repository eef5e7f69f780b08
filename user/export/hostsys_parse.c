// SPDX-License-Identifier: MIT
/*
 * host_cpu, host_mem, host_network and host_disk read back as msprof's
 * Python analysis reads them (its presenters' arithmetic, Decimal's
 * rounding to 6 places done exactly in integers), into rows.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostsys.h"
#include "hostsys_lines.h"

typedef unsigned __int128 u128;

#define E6	1000000u
#define E9	1000000000ull

/* "<s>[.<up to 9 digits>]" as ns; false if it is not such a number. */
static bool decimal_ns(const char *s, uint64_t *ns)
{
	const char *dot = strchr(s, '.');
	size_t whole = dot ? (size_t)(dot - s) : strlen(s), frac = 0, i;
	uint64_t v = 0, f = 0;

	if (!whole || whole > 10 || strspn(s, "0123456789") != whole)
		return false;
	for (i = 0; i < whole; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	if (dot) {
		frac = strlen(dot + 1);
		if (frac > 9 || strspn(dot + 1, "0123456789") != frac)
			return false;
		for (i = 0; i < 9; i++)
			f = f * 10 + (i < frac ? (uint64_t)(dot[1 + i] - '0') : 0);
	}
	*ns = v * E9 + f;
	return true;
}

/* x >= 0 to a whole number, a half to even (no libm in msprof). */
static long double round_even(long double x)
{
	long double t = (long double)(unsigned long long)x, d = x - t;

	if (d > 0.5L || (d == 0.5L && ((unsigned long long)t & 1)))
		t += 1;
	return t;
}

static bool whole(const char *s, long long *v)
{
	char *end;

	*v = strtoll(s, &end, 10);
	return end != s && !*end;
}

/* ---- cpu ---------------------------------------------------------- */

struct cpu_thread {
	int tid;
	int cpu;
	long long ticks;	/* utime + stime */
};

struct cpu_sample {
	uint64_t ts;
	uint64_t up_ns;		/* /proc/uptime: jiffies = up_ns · clk / 1e9 */
	bool up;
	struct cpu_thread *v;	/* in the file's order */
	size_t n, cap;
};

struct cpu_st {
	struct cpu_sample a, b;	/* the last sample, the one being read */
	bool in_b, want_up;
	struct cpu_sum {
		int cpu;
		u128 units;	/* Σ of its threads' jiffies · 1e9 */
	} *sums;
	size_t nsums, capsums;
};

static void *cpu_begin(struct hs_src *s)
{
	(void)s;
	return calloc(1, sizeof(struct cpu_st));
}

static int cpu_row(struct hostsys_data *h, uint64_t start, uint64_t end,
		   int cpu, u128 q)
{
	struct hs_cpu_row *r = hs_push((void **)&h->cpu, &h->ncpu, &h->capcpu,
				       sizeof(*h->cpu));

	if (!r)
		return -ENOMEM;
	*r = (struct hs_cpu_row){ start, end, cpu, (double)(uint64_t)q / E6 };
	return 0;
}

static const struct cpu_thread *find_thread(const struct cpu_sample *s, int tid)
{
	size_t i;

	/* The same threads in the same order, most often: look there first. */
	for (i = 0; i < s->n; i++)
		if (s->v[i].tid == tid)
			return &s->v[i];
	return NULL;
}

/*
 * One interval, as _process_per_usage: each thread's jiffies (capped at
 * the interval's), summed per CPU (that of the later sample) and over all.
 * A thread's d is kept as d·1e9 (units), the interval as Δup_ns·clk.
 */
static int cpu_pair(struct hostsys_data *h, struct cpu_st *st)
{
	const struct cpu_sample *a = &st->a, *b = &st->b;
	u128 delta, total = 0, q;
	size_t i, j;
	int err = 0;

	if (!a->up || !b->up || b->up_ns <= a->up_ns || h->clk_tck <= 0)
		return 0;
	delta = (u128)(b->up_ns - a->up_ns) * (u128)h->clk_tck;
	st->nsums = 0;
	for (i = 0; i < b->n; i++) {
		const struct cpu_thread *t = &b->v[i], *o = find_thread(a, t->tid);
		long long d = o ? t->ticks - o->ticks : 0;
		u128 units;

		if (!o || d < 0)
			continue;
		units = (u128)d * E9;
		if (units > delta)
			units = delta;
		for (j = 0; j < st->nsums && st->sums[j].cpu != t->cpu; j++)
			;
		if (j == st->nsums) {
			struct cpu_sum *c = hs_push((void **)&st->sums, &st->nsums,
						    &st->capsums, sizeof(*st->sums));

			if (!c)
				return -ENOMEM;
			c->cpu = t->cpu;
		}
		st->sums[j].units += units;
		total += units;
	}
	for (j = 0; !err && j < st->nsums; j++) {
		q = hs_div_even(st->sums[j].units * 100 * E6, delta);
		/* Above 100 %: a thread moved CPU within the interval. */
		if (q <= (u128)100 * E6)
			err = cpu_row(h, a->ts, b->ts, st->sums[j].cpu, q);
	}
	if (!err && h->cpu_nums > 0)
		err = cpu_row(h, a->ts, b->ts, HS_CPU_AVG,
			      hs_div_even(total * 100 * E6, delta * (u128)h->cpu_nums));
	return err;
}

static int cpu_line(void *p, struct hs_src *s, char *line, size_t len)
{
	struct cpu_st *st = p;
	struct cpu_thread *t;
	char *f[40];
	long long v[5];
	size_t n;
	int err = 0;

	(void)len;
	if (!strncmp(line, "time", 4)) {
		/* Each interval once its later sample is whole. */
		if (st->in_b && st->a.up)
			err = cpu_pair(s->h, st);
		free(st->a.v);
		st->a = st->b;
		st->b = (struct cpu_sample){ 0 };
		n = hs_split(line, f, 3);
		if (n < 2 || !whole(f[1], &v[0]) || v[0] < 0)
			hs_fault(s, 0, "a time line without its time");
		st->b.ts = n >= 2 && whole(f[1], &v[0]) ? (uint64_t)v[0] : 0;
		st->in_b = st->want_up = true;
		return err;
	}
	if (!st->in_b)
		return 0;
	n = hs_split(line, f, 40);
	if (st->want_up) {
		st->want_up = false;
		st->b.up = n >= 1 && decimal_ns(f[0], &st->b.up_ns);
		if (!st->b.up)
			hs_fault(s, 0, "a sample's uptime is not a number");
		return 0;
	}
	if (n < 39 || !whole(f[0], &v[0]) || !whole(f[13], &v[1]) ||
	    !whole(f[14], &v[2]) || !whole(f[38], &v[3])) {
		hs_fault(s, 0, "a line that is no thread's stat");
		return 0;
	}
	t = hs_push((void **)&st->b.v, &st->b.n, &st->b.cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	*t = (struct cpu_thread){ (int)v[0], (int)v[3], v[1] + v[2] };
	return 0;
}

static int cpu_end(void *p, struct hs_src *s)
{
	struct cpu_st *st = p;
	int err = st->in_b && st->b.n && st->a.n ? cpu_pair(s->h, st) : 0;

	free(st->a.v);
	free(st->b.v);
	free(st->sums);
	free(st);
	return err;
}

const struct hs_stream hs_cpu_stream = { cpu_begin, cpu_line, cpu_end, false };

/* ---- mem ---------------------------------------------------------- */

struct mem_st {
	bool have;
	uint64_t ts;
};

static void *mem_begin(struct hs_src *s)
{
	(void)s;
	return calloc(1, sizeof(struct mem_st));
}

static int mem_line(void *p, struct hs_src *s, char *line, size_t len)
{
	struct mem_st *st = p;
	struct hs_mem_row *r;
	long long ts, res;
	char *f[4];
	u128 q;

	(void)len;
	if (hs_split(line, f, 4) < 3 || !whole(f[0], &ts) || !whole(f[2], &res) ||
	    ts < 0 || res < 0) {
		hs_fault(s, 0, "a line that is no time and statm");
		return 0;
	}
	if (!s->h->mem_total_kb)
		return 0;	/* info.json's memoryTotal: the analysis needs it too */
	/* A 4 KiB page assumed, as msprof's analysis does. */
	q = hs_div_even((u128)res * 4 * 100 * E6, s->h->mem_total_kb);
	if (st->have) {
		r = hs_push((void **)&s->h->mem, &s->h->nmem, &s->h->capmem,
			    sizeof(*r));
		if (!r)
			return -ENOMEM;
		*r = (struct hs_mem_row){ st->ts, (uint64_t)ts, (double)(uint64_t)q / E6 };
	}
	st->have = true;
	st->ts = (uint64_t)ts;
	return 0;
}

static int free_end(void *p, struct hs_src *s)
{
	(void)s;
	free(p);
	return 0;
}

const struct hs_stream hs_mem_stream = { mem_begin, mem_line, free_end, false };

/* ---- network ------------------------------------------------------ */

struct net_if {
	char name[16];
	long long rx, tx;
	long speed;		/* Mb/s, netCard's */
};

struct net_sample {
	uint64_t ts;
	bool timed;
	struct net_if v[HS_NETCARDS];	/* the counted ones, in the file's order */
	unsigned int n;
};

struct net_st {
	struct net_sample a, b;
	bool have_a;
};

static void *net_begin(struct hs_src *s)
{
	(void)s;
	return calloc(1, sizeof(struct net_st));
}

/* write_per_usage: the counted interfaces' bytes a second, and a usage. */
static int net_pair(struct hostsys_data *h, const struct net_sample *a,
		    const struct net_sample *b)
{
	long double total = 0, speed, dur;
	const char *last = NULL;
	struct hs_net_row *r;
	unsigned int i, j, n = 0;
	long last_speed = 0;

	for (i = 0; i < b->n; i++) {
		for (j = 0; j < a->n && strcmp(a->v[j].name, b->v[i].name); j++)
			;
		last = b->v[i].name;
		last_speed = b->v[i].speed;
		if (j == a->n || b->v[i].rx < a->v[j].rx || b->v[i].tx < a->v[j].tx)
			continue;
		total += (long double)(b->v[i].rx - a->v[j].rx) +
			 (long double)(b->v[i].tx - a->v[j].tx);
		n++;
	}
	if (!n || !a->timed || !b->timed)
		return 0;
	/* Its times are float seconds, subtracted as floats. */
	dur = (long double)((double)b->ts / 1e9 - (double)a->ts / 1e9);
	speed = dur != 0 ? total / n / dur : 0;
	r = hs_push((void **)&h->net, &h->nnet, &h->capnet, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->start = a->ts;
	r->end = b->ts;
	/* Of the last interface looked at, counted or not, as the analysis has it. */
	r->usage = last && last_speed > 0 && speed > 0 ?
		   (double)(round_even(speed * 100 / ((long double)last_speed * 125000) * E6) / E6) : 0;
	r->speed = (double)speed * n / 1024;
	return 0;
}

static long card_speed(const struct hostsys_data *h, const char *name)
{
	unsigned int i;

	for (i = 0; i < h->ncards; i++)
		if (!strcmp(h->card[i].name, name))
			return h->card[i].speed;
	return -1;
}

static int net_line(void *p, struct hs_src *s, char *line, size_t len)
{
	struct net_st *st = p;
	struct net_if *i;
	long long ts;
	char *f[12];
	size_t n, nl;
	long speed;
	int err = 0;

	(void)len;
	if (!strncmp(line, "time", 4)) {
		if (st->have_a)
			err = net_pair(s->h, &st->a, &st->b);
		st->a = st->b;
		st->have_a = true;
		memset(&st->b, 0, sizeof(st->b));
		n = hs_split(line, f, 3);
		st->b.timed = n >= 2 && whole(f[1], &ts) && ts >= 0;
		st->b.ts = st->b.timed ? (uint64_t)ts : 0;
		return err;
	}
	n = hs_split(line, f, 12);
	if (n < 12)
		return 0;
	nl = strlen(f[0]);
	f[0][nl - 1] = '\0';	/* the name's ':' */
	speed = card_speed(s->h, f[0]);
	if (speed == -1 || nl > sizeof(i->name) || st->b.n == HS_NETCARDS)
		return 0;
	i = &st->b.v[st->b.n++];
	snprintf(i->name, sizeof(i->name), "%s", f[0]);
	i->speed = speed;
	if (!whole(f[1], &i->rx) || !whole(f[9], &i->tx)) {
		st->b.n--;
		hs_fault(s, 0, "an interface's line without its counters");
	}
	return 0;
}

static int net_end(void *p, struct hs_src *s)
{
	struct net_st *st = p;
	int err = st->have_a && st->b.n ? net_pair(s->h, &st->a, &st->b) : 0;

	free(st);
	return err;
}

const struct hs_stream hs_net_stream = { net_begin, net_line, net_end, false };

/* ---- disk --------------------------------------------------------- */

struct disk_st {
	double start;		/* the slice's last start_time, ns */
	struct hs_disk_row *v;	/* its lines, times set at the end */
	size_t n, cap;
};

static void *disk_begin(struct hs_src *s)
{
	(void)s;
	return calloc(1, sizeof(struct disk_st));
}

/* iotop's units as KB/s; another counts as 1, as the analysis has it. */
static double unit_kb(const char *u)
{
	return !strcmp(u, "B/s") ? 1.0 / 1024 : !strcmp(u, "M/s") ? 1024 :
	       !strcmp(u, "G/s") ? 1024.0 * 1024 : 1;
}

static double number(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	return end != s && !*end && isfinite(v) ? v : 0;
}

static int disk_line(void *p, struct hs_src *s, char *line, size_t len)
{
	struct disk_st *st = p;
	bool unavailable = strstr(line, "unavailable") > line;
	struct hs_disk_row *r;
	char *f[12];
	size_t n = hs_split(line, f, 12);

	(void)len;
	(void)s;
	if (n < 2 || !*f[1] || strspn(f[1], "0123456789") != strlen(f[1]))
		return 0;
	if (!strcmp(f[0], "start_time")) {
		st->start = number(f[1]);
		return 0;
	}
	if (n < 8)
		return 0;
	r = hs_push((void **)&st->v, &st->n, &st->cap, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->read = number(f[4]) * unit_kb(f[5]);
	r->write = number(f[6]) * unit_kb(f[7]);
	r->usage = unavailable || n < 11 ? 0 : number(f[10]);
	return 0;
}

/* Each line one interval of 1/host_disk_freq from the slice's start. */
static int disk_end(void *p, struct hs_src *s)
{
	struct disk_st *st = p;
	struct hostsys_data *h = s->h;
	double step = h->disk_freq > 0 ? 1.0 / (double)h->disk_freq * 1e9 : 0;
	double at = st->start > 0 ? st->start : 0;
	struct hs_disk_row *r;
	size_t i;
	int err = 0;

	if (st->n && !step)
		hs_fault(s, 0, "no host_disk_freq in sample.json: its lines have no times");
	for (i = 0; step && i < st->n; i++, at += step) {
		r = hs_push((void **)&h->disk, &h->ndisk, &h->capdisk, sizeof(*r));
		if (!r) {
			err = -ENOMEM;
			break;
		}
		*r = st->v[i];
		r->start = (uint64_t)round_even(at);
		r->end = (uint64_t)round_even(at + step);
	}
	free(st->v);
	free(st);
	return err;
}

const struct hs_stream hs_disk_stream = { disk_begin, disk_line, disk_end, true };
