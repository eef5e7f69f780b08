// SPDX-License-Identifier: MIT
/*
 * The host system files of a window found, grouped by kind (and process),
 * each group's slices read in order through its format's parser.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/json.h"
#include "common/proflayout.h"
#include "common/safe_open.h"
#include "hostsys.h"
#include "hostsys_lines.h"

/* Slices a window may hold of these files, all kinds together. */
#define MAX_FILES	65536
#define META_MAX	65536

enum kind { K_CPU, K_MEM, K_NET, K_DISK, K_SYS_CPU, K_SYS_MEM, K_PID_CPU,
	    K_PID_MEM, NR_KINDS };

static const struct {
	const char *suffix;	/* after "<pid>-" for the per-process ones */
	bool per_pid;
	unsigned int flag;
	const struct hs_stream *stream;
} kinds[NR_KINDS] = {
	[K_CPU] = { "host_cpu.data", false, HS_CPU, &hs_cpu_stream },
	[K_MEM] = { "host_mem.data", false, HS_MEM, &hs_mem_stream },
	[K_NET] = { "host_network.data", false, HS_NET, &hs_net_stream },
	[K_DISK] = { "host_disk.data", false, HS_DISK, &hs_disk_stream },
	[K_SYS_CPU] = { "host_sys_cpu.data", false, HS_SYS_CPU, &hs_sys_cpu_stream },
	[K_SYS_MEM] = { "host_sys_mem.data", false, HS_SYS_MEM, &hs_sys_mem_stream },
	[K_PID_CPU] = { "CpuUsage.data", true, HS_PID_CPU, &hs_pid_cpu_stream },
	[K_PID_MEM] = { "Memory.data", true, HS_PID_MEM, &hs_pid_mem_stream },
};

struct entry {
	enum kind kind;
	int pid;
	unsigned int slice;
	char name[64];
};

struct listing {
	struct entry *v;
	size_t n, cap;
};

/* "<digits>" at s, ending at end: its value, or -1. */
static long digits(const char *s, const char *end)
{
	long v = 0;

	if (s == end || end - s > 9)
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

static int pick(int dir, const char *name, void *ctx)
{
	struct listing *l = ctx;
	const char *sl = strstr(name, ".slice_"), *base = name;
	long slice, pid = -1;
	struct entry *e;
	unsigned int k;

	(void)dir;
	if (!sl || strlen(name) >= sizeof(e->name) ||
	    (slice = digits(sl + 7, sl + strlen(sl))) < 0)
		return 0;
	if (strchr(name, '-')) {
		pid = digits(name, strchr(name, '-'));
		if (pid < 0)
			return 0;
		base = strchr(name, '-') + 1;
	}
	for (k = 0; k < NR_KINDS; k++)
		if (kinds[k].per_pid == (pid >= 0) &&
		    strlen(kinds[k].suffix) == (size_t)(sl - base) &&
		    !strncmp(base, kinds[k].suffix, (size_t)(sl - base)))
			break;
	if (k == NR_KINDS || l->n == MAX_FILES)
		return 0;
	e = hs_push((void **)&l->v, &l->n, &l->cap, sizeof(*l->v));
	if (!e)
		return -ENOMEM;
	*e = (struct entry){ k, (int)pid, (unsigned int)slice, "" };
	snprintf(e->name, sizeof(e->name), "%s", name);
	return 0;
}

static int by_group_slice(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->kind != y->kind)
		return (int)x->kind - (int)y->kind;
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->slice > y->slice) - (x->slice < y->slice);
}

/* One slice through st's parser. */
static int read_slice(const struct hs_stream *k, void *st, struct hs_src *s,
		      char *buf)
{
	struct hs_lines r = { .buf = buf };
	struct stat sb;
	char *line;
	size_t len;
	int err = 0;

	r.fd = safe_open_beneath(s->p->dirfd, s->file, &sb);
	if (r.fd < 0) {
		if (r.fd == -ENOMEM)
			return r.fd;
		profdata_unread(s->p, s->file, r.fd, &(struct recfile_stop){ 0 });
		return 0;
	}
	while (!err && hs_next_line(&r, &line, &len))
		err = k->line(st, s, line, len);
	close(r.fd);
	if (r.skipped)
		hs_fault(s, 0, "lines longer than any of its format's, skipped");
	return err;
}

/* Each group of slices (a kind, a process) through its parser. */
static int read_groups(struct profdata *p, struct hostsys_data *h,
		       const struct listing *l)
{
	char file[sizeof(PROFDIR_HOST_DATA) + 72], *buf = malloc(HS_LINE_MAX * 8 + 1);
	struct hs_src s = { .p = p, .h = h, .file = file };
	size_t i, j;
	void *st = NULL;
	int err = buf ? 0 : -ENOMEM;

	for (i = 0; !err && i < l->n; i = j) {
		const struct hs_stream *k = kinds[l->v[i].kind].stream;

		h->files |= kinds[l->v[i].kind].flag;
		s.pid = l->v[i].pid;
		for (j = i; !err && j < l->n && l->v[j].kind == l->v[i].kind &&
			    l->v[j].pid == l->v[i].pid; j++) {
			snprintf(file, sizeof(file), PROFDIR_HOST_DATA "/%s",
				 l->v[j].name);
			if (j == i || k->per_slice)
				st = k->begin(&s);
			if (!st) {
				err = -ENOMEM;
				break;
			}
			err = read_slice(k, st, &s, buf);
			if (!err && (k->per_slice || j + 1 == l->n ||
				     l->v[j + 1].kind != l->v[i].kind ||
				     l->v[j + 1].pid != l->v[i].pid))
				err = k->end(st, &s);
		}
	}
	free(buf);
	return err;
}

/* info.json's netCard: each {"netCardName":"..","speed":N} in its array. */
static void read_cards(struct hostsys_data *h, const char *text)
{
	const char *at = strstr(text, "\"netCard\":["), *end;
	char name[64];

	if (!at)
		return;
	end = strchr(at, ']');
	for (at = strstr(at, "\"netCardName\":\""); at && (!end || at < end) &&
	     h->ncards < HS_NETCARDS; at = strstr(at, "\"netCardName\":\"")) {
		const char *q, *sp;

		at += 15;
		q = strchr(at, '"');
		sp = q ? strstr(q, "\"speed\":") : NULL;
		if (!q || !sp || (end && sp > end) || (size_t)(q - at) >= sizeof(name))
			break;
		snprintf(h->card[h->ncards].name, sizeof(h->card[0].name), "%.*s",
			 (int)(q - at), at);
		h->card[h->ncards++].speed = strtol(sp + 8, NULL, 10);
		at = sp;
	}
}

static int read_meta(struct profdata *p, struct hostsys_data *h)
{
	char *text = malloc(META_MAX);
	int err;

	if (!text)
		return -ENOMEM;
	err = safe_read_small_beneath(p->dirfd, PROFDIR_HOST_INFO, text, META_MAX);
	if (!err) {
		h->cpu_nums = (long)json_find_number(text, "cpuNums");
		h->clk_tck = (long)json_find_number(text, "sysClockFreq");
		h->mem_total_kb = (uint64_t)json_find_number(text, "memoryTotal");
		read_cards(h, text);
	}
	if (!safe_read_small_beneath(p->dirfd, PROFDIR_HOST_SAMPLE, text, META_MAX))
		h->disk_freq = (long)json_find_number(text, "host_disk_freq");
	free(text);
	h->offset_ns = profmeta_offset_ns(&p->meta);
	return err == -ENOMEM ? err : 0;
}

int hostsys_load(struct profdata *p)
{
	struct listing l = { 0 };
	struct hostsys_data *h;
	int err, fd;

	p->hostsys = NULL;
	fd = safe_openat_beneath(p->dirfd, PROFDIR_HOST_DATA,
				 O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0)
		return fd == -ENOMEM ? fd : 0;
	err = fsutil_dir_for_each(fd, pick, &l);
	close(fd);
	if (err || !l.n) {
		free(l.v);
		return err;
	}
	qsort(l.v, l.n, sizeof(*l.v), by_group_slice);
	h = calloc(1, sizeof(*h));
	err = h ? read_meta(p, h) : -ENOMEM;
	if (!err)
		err = read_groups(p, h, &l);
	free(l.v);
	if (err) {
		hostsys_free(h);
		return err;
	}
	p->hostsys = h;
	return 0;
}

void hostsys_free(struct hostsys_data *h)
{
	if (!h)
		return;
	free(h->cpu);
	free(h->mem);
	free(h->net);
	free(h->disk);
	free(h->procs);
	free(h);
}
