// SPDX-License-Identifier: MIT
/* One target's host data: what its period reads, in msprof's files. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/growarr.h"
#include "systarget.h"

/* Buffers: msprof's collector sends 8 KB chunks; a process's file 4 KB. */
#define FILE_BUF	(64u << 10)
#define PID_FILE_BUF	(4u << 10)
/*
 * What is buffered goes out at least this often: a read that then waits
 * for good (a stuck exec) costs the window no more of its samples.
 */
#define FLUSH_NS	1000000000ull
/* Processes whose files one window keeps, over its whole length. */
#define PID_FILES_MAX	(4 * SYSREAD_PIDS_MAX)


/* Prepared whether asked for or not: only a file sampled is made. */
static int file(struct sys_target *t, struct sysfile *f, const char *name)
{
	return sysfile_init(f, t->dir, name, FILE_BUF, false);
}

/* The task's name as iotop's COMMAND shows it. */
static void read_comm(struct sys_target *t)
{
	int fd = openat(t->task.proc_fd, "comm", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, t->comm, sizeof(t->comm) - 1);

	if (fd >= 0)
		close(fd);
	t->comm[n > 0 ? n : 0] = '\0';
	sysfmt_comm_clean(t->comm);
}

/* iotop's PRIO column: the class and level, the level from nice if unset. */
static void io_prio(int pid, char *out, size_t len)
{
	long p = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, pid);
	int nice;

	if (p >= 0 && (p >> 13) == 1)
		snprintf(out, len, "rt/%ld", p & 7);
	else if (p >= 0 && (p >> 13) == 3)
		snprintf(out, len, "idle");
	else if (p >= 0 && (p >> 13) == 2)
		snprintf(out, len, "be/%ld", p & 7);
	else {
		errno = 0;
		nice = getpriority(PRIO_PROCESS, (id_t)pid);
		snprintf(out, len, "be/%d", errno ? 4 : (nice + 20) / 5);
	}
}

int systarget_open(struct sys_target *t, int pid, int dir,
		   const struct hostsys_conf *c, struct sysread_fds *fds)
{
	struct stat st;
	int err;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->dir = dir;
	t->items = c->items;
	t->usage = c->usage;
	t->statm.fd = t->io.fd = -1;
	t->task.proc_fd = t->task.task_fd = -1;
	t->budget.max = SYS_SAMPLER_BYTES_MAX;
	t->flushed_ns = clock_ns(CLOCK_MONOTONIC_RAW);
	err = sysread_task_open(&t->task, pid);
	if (err)
		return err;
	if (!fstat(t->task.proc_fd, &st))
		t->uid = st.st_uid;
	read_comm(t);
	io_prio(pid, t->prio, sizeof(t->prio));
	err = file(t, &t->cpu, "host_cpu.data") ?:
	      file(t, &t->mem, "host_mem.data") ?:
	      file(t, &t->net, "host_network.data") ?:
	      /* Its start_time line goes first into each slice: unbuffered. */
	      sysfile_init(&t->disk, dir, "host_disk.data", 0, false) ?:
	      file(t, &t->sys_cpu, "host_sys_cpu.data") ?:
	      file(t, &t->sys_mem, "host_sys_mem.data");
	if (err)
		sysread_task_close(&t->task, fds);
	return err;
}

static void keep_err(struct sys_target *t, int err)
{
	if (err && !t->res.err)
		t->res.err = err;
}

static void put(struct sys_target *t, struct sysfile *f, const struct sysbuf *b)
{
	if (b->len && !b->full)
		keep_err(t, sysfile_put(f, b->v, b->len, &t->budget));
}

/* host_cpu.data: time, uptime, then each thread's stat line. */
static void cpu_block(struct sys_target *t, const struct sys_shared *sh,
		      struct sysbuf *b)
{
	unsigned int lines = 0, left = 0;
	size_t i;

	b->len = 0;
	b->full = false;
	if (!sh->uptime)
		return;
	sysbuf_printf(b, "time %llu\n", (unsigned long long)sh->raw_ns);
	sysbuf_add(b, sh->uptime, sh->uptime_len);
	for (i = 0; i < t->task.n; i++) {
		const struct sysread_thread *th = &t->task.v[i];

		if (!th->line)
			continue;
		/* A sample stays within one slice: what does not fit is left. */
		if (th->len + 1u > b->cap - b->len) {
			left++;
			continue;
		}
		sysbuf_add(b, th->line, th->len);
		sysbuf_add(b, "\n", 1);
		lines++;
	}
	if (lines > t->res.threads_max)
		t->res.threads_max = lines;
	left += t->task.left_out;
	if (left > t->res.threads_left_out)
		t->res.threads_left_out = left;
	if (lines)
		put(t, &t->cpu, b);
}

static void mem_line(struct sys_target *t, const struct sys_shared *sh,
		     struct sysread_fds *fds, struct sysbuf *b)
{
	char statm[256];
	ssize_t n = sysread_at(&t->statm, fds, t->task.proc_fd, "statm", statm,
			       sizeof(statm));

	/*
	 * A zombie (exited, not yet reaped) reads all zeros: it has no
	 * memory, and its samples ended with it.
	 */
	if (n <= 0 || statm[n - 1] != '\n' || !strncmp(statm, "0 ", 2))
		return;
	b->len = 0;
	b->full = false;
	sysbuf_printf(b, "%llu %s", (unsigned long long)sh->raw_ns, statm);
	put(t, &t->mem, b);
}

static void net_block(struct sys_target *t, const struct sys_shared *sh,
		      struct sysbuf *b)
{
	if (!sh->netdev)
		return;
	b->len = 0;
	b->full = false;
	sysbuf_printf(b, "time %llu\n", (unsigned long long)sh->raw_ns);
	sysfmt_netdev_lines(b, sh->netdev, sh->netdev_len);
	put(t, &t->net, b);
}

/* The task's threads' block I/O delays, in clock ticks. */
static uint64_t blkio_ticks(const struct sys_target *t)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < t->task.n; i++)
		if (t->task.v[i].line)
			sum += t->task.v[i].blkio;
	return sum;
}

/* host_disk.data: iotop's line of the interval since the last sample. */
static void disk_line(struct sys_target *t, const struct sys_shared *sh,
		      struct sysread_fds *fds, struct sysbuf *b)
{
	struct sysfmt_disk d = {
		.real_ns = sh->real_ns, .pid = t->pid, .prio = t->prio,
		.uid = t->uid, .comm = t->comm, .io_pct = -1,
	};
	uint64_t rb, wb, ticks = sh->delayacct ? blkio_ticks(t) : 0, dt;
	char io[1024];
	ssize_t n = sysread_at(&t->io, fds, t->task.proc_fd, "io", io, sizeof(io));

	if (n <= 0 || !sysfmt_io_parse(io, (size_t)n, &rb, &wb))
		return;
	if (t->have_io && sh->raw_ns > t->io_ns) {
		dt = sh->raw_ns - t->io_ns;
		d.read_bps = rb > t->read_bytes ? (double)(rb - t->read_bytes) * 1e9 / (double)dt : 0;
		d.write_bps = wb > t->write_bytes ? (double)(wb - t->write_bytes) * 1e9 / (double)dt : 0;
		if (sh->delayacct)
			d.io_pct = ticks > t->blkio_ticks ?
				   (double)(ticks - t->blkio_ticks) * 1e11 /
				   (double)sh->clk_tck / (double)dt : 0;
		b->len = 0;
		b->full = false;
		sysfmt_disk_line(b, &d);
		/* The analysis counts a slice's lines from its start_time. */
		if (sysfile_starts_slice(&t->disk, b->len + 32)) {
			char line[512];
			struct sysbuf head = { line, 0, sizeof(line), false };

			sysfmt_disk_start(&head, t->io_ns);
			sysbuf_add(&head, b->v, b->len);
			put(t, &t->disk, &head);
		} else {
			put(t, &t->disk, b);
		}
	}
	t->have_io = true;
	t->io_ns = sh->raw_ns;
	t->read_bytes = rb;
	t->write_bytes = wb;
	t->blkio_ticks = ticks;
}

/* Every buffer of t written out, once a second at most. */
static void flush_all(struct sys_target *t, uint64_t now)
{
	struct sysfile *files[] = {
		&t->cpu, &t->mem, &t->net, &t->disk, &t->sys_cpu, &t->sys_mem,
	};
	size_t i;

	if (now - t->flushed_ns < FLUSH_NS)
		return;
	t->flushed_ns = now;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		keep_err(t, sysfile_flush(files[i], &t->budget));
	for (i = 0; i < t->npf; i++) {
		keep_err(t, sysfile_flush(&t->pf[i].cpu, &t->budget));
		keep_err(t, sysfile_flush(&t->pf[i].mem, &t->budget));
	}
}

void systarget_sample(struct sys_target *t, const struct sys_shared *sh,
		      struct sysread_fds *fds, struct sysbuf *scratch)
{
	bool cpu = t->items & 1u << HOSTSYS_CPU, disk = t->items & 1u << HOSTSYS_DISK;
	int err = 0;

	if (t->gone)
		return;
	if (cpu || disk)
		err = sysread_task_update(&t->task, fds);
	if (err == -ESRCH) {
		t->gone = true;
		t->res.ended = true;
		return;
	}
	keep_err(t, err);
	t->res.samples++;
	if (cpu)
		cpu_block(t, sh, scratch);
	if (t->items & 1u << HOSTSYS_MEM)
		mem_line(t, sh, fds, scratch);
	if (disk)
		disk_line(t, sh, fds, scratch);
	if (t->items & 1u << HOSTSYS_NETWORK)
		net_block(t, sh, scratch);
	flush_all(t, sh->raw_ns);
}

/* A usage block: its head, the payload, the empty line after. */
static void usage_block(struct sys_target *t, struct sysfile *f, uint64_t ns,
			const char *payload, size_t len, struct sysbuf *b)
{
	if (!len)
		return;
	b->len = 0;
	b->full = false;
	sysfmt_usage_head(b, ns, f->index, len);
	sysbuf_add(b, payload, len);
	sysfmt_usage_end(b);
	put(t, f, b);
}

void systarget_usage_sys(struct sys_target *t, const struct sys_usage_shared *u,
			 struct sysbuf *scratch)
{
	if (t->usage & 1u << HOSTSYS_USAGE_CPU && u->cpus)
		usage_block(t, &t->sys_cpu, u->raw_ns, u->cpus, u->cpus_len, scratch);
	if (t->usage & 1u << HOSTSYS_USAGE_MEM && u->meminfo)
		usage_block(t, &t->sys_mem, u->raw_ns, u->meminfo, u->meminfo_len,
			    scratch);
	flush_all(t, u->raw_ns);
}

static int by_pid(const void *a, const void *b)
{
	const struct sys_pidfiles *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static struct sys_pidfiles *find_pid(struct sys_target *t, int pid)
{
	struct sys_pidfiles key = { .pid = pid };

	return t->npf ? bsearch(&key, t->pf, t->npf, sizeof(*t->pf), by_pid) : NULL;
}

/* pid's files, made on its first sample: kept (closed) if it goes and comes. */
static struct sys_pidfiles *pid_files(struct sys_target *t, int pid)
{
	struct sys_pidfiles *p = find_pid(t, pid);
	char name[64];
	size_t at;

	if (p || t->npf == PID_FILES_MAX)
		return p;
	if (!growarr_push((void **)&t->pf, &t->npf, &t->cappf, sizeof(*t->pf)))
		return NULL;
	/* Kept in pid order: the new one moved to its place. */
	for (at = t->npf - 1; at && t->pf[at - 1].pid > pid; at--)
		;
	memmove(t->pf + at + 1, t->pf + at, (t->npf - 1 - at) * sizeof(*t->pf));
	p = &t->pf[at];
	p->pid = pid;
	snprintf(name, sizeof(name), "%d-CpuUsage.data", pid);
	sysfile_init(&p->cpu, t->dir, name, PID_FILE_BUF, true);
	snprintf(name, sizeof(name), "%d-Memory.data", pid);
	sysfile_init(&p->mem, t->dir, name, PID_FILE_BUF, true);
	return p;
}

void systarget_usage_proc(struct sys_target *t, int pid, uint64_t raw_ns,
			  const struct sysbuf *cpu, const struct sysbuf *mem,
			  struct sysbuf *scratch)
{
	struct sys_pidfiles *p = pid_files(t, pid);

	if (!p) {
		t->res.procs_left_out++;
		return;
	}
	if (cpu && !cpu->full)
		usage_block(t, &p->cpu, raw_ns, cpu->v, cpu->len, scratch);
	if (mem && !mem->full)
		usage_block(t, &p->mem, raw_ns, mem->v, mem->len, scratch);
}

void systarget_usage_gone(struct sys_target *t, int pid)
{
	struct sys_pidfiles *p = find_pid(t, pid);

	if (!p)
		return;
	keep_err(t, sysfile_idle(&p->cpu, &t->budget));
	keep_err(t, sysfile_idle(&p->mem, &t->budget));
}

static void end_file(struct sys_target *t, struct sysfile *f,
		     enum systarget_end how)
{
	if (how == SYSTARGET_DISCARD) {
		sysfile_discard(f);
		return;
	}
	/* Left: its window was finished without it; what is buffered goes. */
	if (how == SYSTARGET_LEAVE)
		f->len = 0;
	keep_err(t, sysfile_close(f, &t->budget));
	t->res.bytes += sysfile_bytes(f);
}

void systarget_close(struct sys_target *t, enum systarget_end how,
		     struct sysread_fds *fds, struct sys_result *r)
{
	struct sysfile *files[] = {
		&t->cpu, &t->mem, &t->net, &t->disk, &t->sys_cpu, &t->sys_mem,
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		end_file(t, files[i], how);
	for (i = 0; i < t->npf; i++) {
		end_file(t, &t->pf[i].cpu, how);
		end_file(t, &t->pf[i].mem, how);
	}
	/* Per-process files were let go unsynced: all synced at once. */
	if (t->npf && how == SYSTARGET_WRITE && syncfs(t->dir))
		keep_err(t, -errno);
	free(t->pf);
	sysread_task_close(&t->task, fds);
	sysread_close(&t->statm, fds);
	sysread_close(&t->io, fds);
	close(t->dir);
	*r = t->res;
}
