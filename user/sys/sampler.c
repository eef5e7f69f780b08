// SPDX-License-Identifier: MIT
/*
 * The host-sys sampler's thread: targets join and leave through requests
 * it answers between samples, never under a lock it holds while reading.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "sampler.h"
#include "systarget.h"
#include "sysusage.h"

#define MAX_TARGETS	64
/* Bounds of the system files read each period. */
#define NETDEV_MAX	(64u << 10)
#define STAT_MAX	(256u << 10)
#define MEMINFO_MAX	(16u << 10)

enum op_kind { OP_ADD, OP_REMOVE };

/* A request of the prompt's thread, answered by the sampler's. */
struct op {
	enum op_kind kind;
	int pid, dir;
	bool discard;
	bool done;		/* answered: res and err are set */
	bool abandoned;		/* its waiter gave up: the sampler frees it */
	int err;
	struct sys_result res;
	struct op *next;
};

struct sys_sampler {
	pthread_mutex_t mu;
	pthread_cond_t wake;	/* the sampler's: a request, the stop */
	pthread_cond_t answered;	/* the waiters' */
	struct op *ops;		/* requests not taken yet, newest first */
	bool stopping, exited, orphaned;
	pthread_t thread;
	struct hostsys_conf conf;

	/* The sampler thread's own, untouched by the others. */
	struct sys_target t[MAX_TARGETS];
	int n;
	struct sysread_fds fds;
	struct sysusage usage;
	bool usage_open;
	struct sysread_file uptime, netdev, stat, meminfo;
	char *text;		/* the system files' room */
	struct sysbuf scratch, pcpu, pmem;
	bool delayacct;
	long clk_tck;
};

bool sys_sampler_wanted(const struct hostsys_conf *c)
{
	return c->usage || hostsys_on(c, HOSTSYS_CPU) || hostsys_on(c, HOSTSYS_MEM) ||
	       hostsys_on(c, HOSTSYS_DISK) || hostsys_on(c, HOSTSYS_NETWORK);
}

static bool main_wanted(const struct hostsys_conf *c)
{
	return c->items & (1u << HOSTSYS_CPU | 1u << HOSTSYS_MEM |
			   1u << HOSTSYS_DISK | 1u << HOSTSYS_NETWORK);
}

/* Whether the kernel keeps per-task I/O delays (off by default since 5.14). */
static bool read_delayacct(void)
{
	char c = '0';
	int fd = open("/proc/sys/kernel/task_delayacct", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = '0';
		close(fd);
	}
	return c == '1';
}

static void free_sampler(struct sys_sampler *s)
{
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->wake);
	pthread_cond_destroy(&s->answered);
	free(s->text);
	free(s->scratch.v);
	free(s->pcpu.v);
	free(s->pmem.v);
	free(s);
}

static int find_target(struct sys_sampler *s, int pid)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->t[i].pid == pid)
			return i;
	return -1;
}

/* One request, in the sampler's thread, outside the lock. */
static void serve(struct sys_sampler *s, struct op *o)
{
	int i = find_target(s, o->pid);

	if (o->kind == OP_ADD) {
		if (i >= 0 || s->n == MAX_TARGETS) {
			close(o->dir);
			o->err = i >= 0 ? -EEXIST : -ENOSPC;
			return;
		}
		o->err = systarget_open(&s->t[s->n], o->pid, o->dir, &s->conf,
					&s->fds);
		if (o->err)
			close(o->dir);
		else
			s->n++;
		return;
	}
	if (i < 0) {
		o->err = -ENOENT;
		return;
	}
	/* A waiter that gave up finished the window: nothing more goes in. */
	systarget_close(&s->t[i], o->discard ? SYSTARGET_DISCARD :
			__atomic_load_n(&o->abandoned, __ATOMIC_ACQUIRE) ?
			SYSTARGET_LEAVE : SYSTARGET_WRITE, &s->fds, &o->res);
	s->t[i] = s->t[--s->n];
}

/* Takes the requests (lock held), serves them unlocked, answers them. */
static void serve_all(struct sys_sampler *s)
{
	struct op *list = s->ops, *o, *next, *rev = NULL;

	s->ops = NULL;
	for (o = list; o; o = next) {	/* oldest first */
		next = o->next;
		o->next = rev;
		rev = o;
	}
	pthread_mutex_unlock(&s->mu);
	for (o = rev; o; o = o->next)
		serve(s, o);
	pthread_mutex_lock(&s->mu);
	for (o = rev; o; o = next) {
		next = o->next;
		/* An add is not waited for; a removal given up on is ours. */
		if (o->kind == OP_ADD || o->abandoned)
			free(o);
		else
			o->done = true;
	}
	pthread_cond_broadcast(&s->answered);
}

/* A system file's text at at, within max; its length, 0 if unread. */
static size_t read_sys(struct sys_sampler *s, struct sysread_file *f,
		       const char *path, char *at, size_t max)
{
	ssize_t n = sysread_at(f, &s->fds, AT_FDCWD, path, at, max);

	/* /proc/stat is longer than its cpu lines: a cut one is enough. */
	return n > 0 ? (size_t)n : 0;
}

static void sample_main(struct sys_sampler *s)
{
	char *up = s->text, *net = up + 128;
	struct sys_shared sh = {
		.delayacct = s->delayacct, .clk_tck = s->clk_tck,
	};
	size_t n;
	int i;

	sh.raw_ns = clock_ns(CLOCK_MONOTONIC_RAW);
	sh.real_ns = clock_ns(CLOCK_REALTIME);
	if (hostsys_on(&s->conf, HOSTSYS_CPU) &&
	    (n = read_sys(s, &s->uptime, "/proc/uptime", up, 128)) &&
	    up[n - 1] == '\n') {
		sh.uptime = up;
		sh.uptime_len = n;
	}
	if (hostsys_on(&s->conf, HOSTSYS_NETWORK) &&
	    (n = read_sys(s, &s->netdev, "/proc/net/dev", net, NETDEV_MAX))) {
		sh.netdev = net;
		sh.netdev_len = n;
	}
	for (i = 0; i < s->n; i++)
		systarget_sample(&s->t[i], &sh, &s->fds, &s->scratch);
}

/* A process that went: no target keeps a buffer for it. */
static void proc_gone(int pid, void *ctx)
{
	struct sys_sampler *s = ctx;
	int j;

	for (j = 0; j < s->n; j++)
		systarget_usage_gone(&s->t[j], pid);
}

/* Each process's blocks into every target's files. */
static void sample_procs(struct sys_sampler *s, const struct sys_usage_shared *u)
{
	bool cpu = hostsys_usage_on(&s->conf, HOSTSYS_USAGE_CPU) && u->total;
	bool mem = hostsys_usage_on(&s->conf, HOSTSYS_USAGE_MEM);
	size_t i;
	int j;

	if (!s->usage_open)
		return;
	for (i = 0; i < s->usage.n; i++) {
		s->pcpu.len = s->pmem.len = 0;
		s->pcpu.full = s->pmem.full = false;
		if (!sysusage_read(&s->usage, i, &s->fds, u->total, u->total_len,
				   cpu ? &s->pcpu : NULL, mem ? &s->pmem : NULL))
			continue;	/* gone: the next scan says so */
		for (j = 0; j < s->n; j++)
			systarget_usage_proc(&s->t[j], s->usage.v[i].pid, u->raw_ns,
					     cpu ? &s->pcpu : NULL,
					     mem ? &s->pmem : NULL, &s->scratch);
	}
}

static void sample_usage(struct sys_sampler *s)
{
	char *stat = s->text + 128 + NETDEV_MAX, *mi = stat + STAT_MAX;
	struct sys_usage_shared u = { .raw_ns = clock_ns(CLOCK_MONOTONIC_RAW) };
	struct sysbuf cpus = { stat + STAT_MAX / 2, 0, STAT_MAX / 2, false };
	size_t n;
	int i;

	n = read_sys(s, &s->stat, "/proc/stat", stat, STAT_MAX / 2);
	if (n && sysfmt_cpu_lines(&cpus, stat, n, false)) {
		u.cpus = cpus.v;
		u.cpus_len = cpus.len;
		u.total = cpus.v;
		u.total_len = (size_t)((char *)memchr(cpus.v, '\n', cpus.len) - cpus.v) + 1;
	}
	if (hostsys_usage_on(&s->conf, HOSTSYS_USAGE_MEM) &&
	    (n = read_sys(s, &s->meminfo, "/proc/meminfo", mi, MEMINFO_MAX)))  {
		u.meminfo = mi;
		u.meminfo_len = n;
	}
	for (i = 0; i < s->n; i++)
		systarget_usage_sys(&s->t[i], &u, &s->scratch);
	if (s->usage_open && !sysusage_scan(&s->usage, &s->fds, proc_gone, s))
		sample_procs(s, &u);
	for (i = 0; i < s->n; i++)
		if (s->usage.left_out > s->t[i].res.procs_left_out)
			s->t[i].res.procs_left_out = s->usage.left_out;
}

static uint64_t next_at(uint64_t due, uint64_t now, uint64_t period)
{
	due += period;
	/* Late (a slow period): a quarter of one left idle, not a burst. */
	return due > now ? due : now + period / 4;
}

static struct timespec abs_mono(uint64_t ns)
{
	return (struct timespec){ (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
}

/* left: the stop gave up waiting, its windows are written without these. */
static void end_all(struct sys_sampler *s, bool left)
{
	struct sys_result r;

	while (s->n) {
		systarget_close(&s->t[s->n - 1], left ? SYSTARGET_LEAVE :
				SYSTARGET_WRITE, &s->fds, &r);
		s->n--;
	}
	if (s->usage_open)
		sysusage_close(&s->usage, &s->fds);
	sysread_close(&s->uptime, &s->fds);
	sysread_close(&s->netdev, &s->fds);
	sysread_close(&s->stat, &s->fds);
	sysread_close(&s->meminfo, &s->fds);
}

static void *run(void *arg)
{
	struct sys_sampler *s = arg;
	uint64_t main_ns = 1000000ull * HOSTSYS_PERIOD_MS;
	uint64_t usage_ns = 1000000ull * hostsys_usage_period_ms(&s->conf);
	uint64_t now, next_main, next_usage, wake;
	bool orphaned;

	/* Named, so that its CPU can be told from the rest of msprof's (bench). */
	pthread_setname_np(pthread_self(), SYS_SAMPLER_THREAD);
	now = clock_ns(CLOCK_MONOTONIC);
	next_main = main_wanted(&s->conf) ? now : UINT64_MAX;
	next_usage = s->conf.usage ? now : UINT64_MAX;
	pthread_mutex_lock(&s->mu);
	while (!s->stopping) {
		if (s->ops)
			serve_all(s);
		pthread_mutex_unlock(&s->mu);
		now = clock_ns(CLOCK_MONOTONIC);
		if (now >= next_main) {
			sample_main(s);
			next_main = next_at(next_main, clock_ns(CLOCK_MONOTONIC), main_ns);
		}
		if (now >= next_usage) {
			sample_usage(s);
			next_usage = next_at(next_usage, clock_ns(CLOCK_MONOTONIC), usage_ns);
		}
		pthread_mutex_lock(&s->mu);
		wake = next_main < next_usage ? next_main : next_usage;
		if (!s->ops && !s->stopping) {
			struct timespec ts = abs_mono(wake);

			pthread_cond_timedwait(&s->wake, &s->mu, &ts);
		}
	}
	if (s->ops)
		serve_all(s);
	orphaned = s->orphaned;
	pthread_mutex_unlock(&s->mu);
	end_all(s, orphaned);
	pthread_mutex_lock(&s->mu);
	s->exited = true;
	orphaned = s->orphaned;
	pthread_cond_broadcast(&s->answered);
	pthread_mutex_unlock(&s->mu);
	if (orphaned)
		free_sampler(s);
	return NULL;
}

static int alloc_sampler(struct sys_sampler **sp, const struct hostsys_conf *c)
{
	struct sys_sampler *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;

	*sp = s;
	if (!s)
		return -ENOMEM;
	s->conf = *c;
	s->uptime.fd = s->netdev.fd = s->stat.fd = s->meminfo.fd = -1;
	s->text = malloc(128 + NETDEV_MAX + STAT_MAX + MEMINFO_MAX);
	s->scratch = (struct sysbuf){ malloc(TEXTSLICE_MAX), 0, TEXTSLICE_MAX, false };
	s->pcpu = (struct sysbuf){ malloc(4096), 0, 4096, false };
	s->pmem = (struct sysbuf){ malloc(1024), 0, 1024, false };
	pthread_mutex_init(&s->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_cond_init(&s->answered, &ca);
	pthread_condattr_destroy(&ca);
	if (!s->text || !s->scratch.v || !s->pcpu.v || !s->pmem.v)
		return -ENOMEM;
	return 0;
}

int sys_sampler_start(struct sys_sampler **sp, const struct hostsys_conf *c)
{
	struct sys_sampler *s;
	sigset_t all, old;
	int err = alloc_sampler(&s, c);

	if (err) {
		if (s)
			free_sampler(s);
		return err;
	}
	sysread_fd_budget(&s->fds);
	s->delayacct = read_delayacct();
	s->clk_tck = sysconf(_SC_CLK_TCK);
	if (c->usage) {
		err = sysusage_open(&s->usage);
		s->usage_open = !err;
	}
	/* The prompt's thread reads the signals; the sampler takes none. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&s->thread, NULL, run, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		if (s->usage_open)
			sysusage_close(&s->usage, &s->fds);
		free_sampler(s);
		return err;
	}
	*sp = s;
	return 0;
}

static int push(struct sys_sampler *s, struct op *o)
{
	pthread_mutex_lock(&s->mu);
	if (s->stopping || s->exited) {
		pthread_mutex_unlock(&s->mu);
		return -ESHUTDOWN;
	}
	o->next = s->ops;
	s->ops = o;
	pthread_cond_signal(&s->wake);
	return 0;
}

int sys_sampler_add(struct sys_sampler *s, int host_pid, int dir)
{
	struct op *o = calloc(1, sizeof(*o));
	int err;

	if (!o)
		return -ENOMEM;
	o->kind = OP_ADD;
	o->pid = host_pid;
	o->dir = fcntl(dir, F_DUPFD_CLOEXEC, 0);
	if (o->dir < 0) {
		err = -errno;
		free(o);
		return err;
	}
	err = push(s, o);
	if (err) {
		close(o->dir);
		free(o);
		return err;
	}
	pthread_mutex_unlock(&s->mu);
	return 0;
}

static struct timespec deadline(void)
{
	return abs_mono(clock_ns(CLOCK_MONOTONIC) + 1000000ull * SYS_SAMPLER_WAIT_MS);
}

int sys_sampler_remove(struct sys_sampler *s, int host_pid, bool discard,
		       struct sys_result *r)
{
	struct op *o = calloc(1, sizeof(*o));
	struct timespec until = deadline();
	int err;

	memset(r, 0, sizeof(*r));
	if (!o)
		return -ENOMEM;
	o->kind = OP_REMOVE;
	o->pid = host_pid;
	o->discard = discard;
	err = push(s, o);
	if (err) {
		free(o);
		return err;
	}
	while (!o->done && !s->exited &&
	       pthread_cond_timedwait(&s->answered, &s->mu, &until) != ETIMEDOUT)
		;
	if (!o->done) {
		__atomic_store_n(&o->abandoned, true, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&s->mu);
		return -ETIMEDOUT;
	}
	pthread_mutex_unlock(&s->mu);
	*r = o->res;
	err = o->err;
	free(o);
	return err;
}

void sys_sampler_stop(struct sys_sampler *s)
{
	struct timespec until = deadline();
	bool exited;

	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stopping = true;
	pthread_cond_signal(&s->wake);
	while (!s->exited &&
	       pthread_cond_timedwait(&s->answered, &s->mu, &until) != ETIMEDOUT)
		;
	exited = s->exited;
	if (!exited)
		s->orphaned = true;	/* it frees s as it ends */
	pthread_mutex_unlock(&s->mu);
	if (exited) {
		pthread_join(s->thread, NULL);
		free_sampler(s);
	} else {
		pthread_detach(s->thread);
	}
}
