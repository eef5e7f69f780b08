// SPDX-License-Identifier: MIT
/* The host-sys sampler's /proc reads: files kept open, threads kept track of. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/growarr.h"
#include "sysfmt.h"
#include "sysread.h"

/* Descriptors left to the rest of msprof: BPF objects, links, sockets. */
#define FDS_FOR_OTHERS	512
#define FDS_RAISE_MAX	65536

void sysread_fd_budget(struct sysread_fds *f)
{
	struct rlimit rl;
	rlim_t want;

	f->kept = 0;
	f->max = 0;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	want = rl.rlim_max < FDS_RAISE_MAX ? rl.rlim_max : FDS_RAISE_MAX;
	/* msprof has no select(): a descriptor past 1024 is as good as any. */
	if (rl.rlim_cur < want) {
		rl.rlim_cur = want;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur > 2 * FDS_FOR_OTHERS)
		f->max = (unsigned int)(rl.rlim_cur - FDS_FOR_OTHERS);
	else
		f->max = (unsigned int)(rl.rlim_cur / 2);
}

ssize_t sysread_at(struct sysread_file *rf, struct sysread_fds *fds, int dir,
		   const char *name, char *buf, size_t cap)
{
	ssize_t n;
	int fd = rf->fd;

	if (fd < 0) {
		/* /proc's own entries: no link to follow, no FIFO to hang on. */
		fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
	}
	do
		n = pread(fd, buf, cap - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	if (rf->fd < 0 && n >= 0 && fds->kept < fds->max) {
		rf->fd = fd;
		fds->kept++;
	} else if (rf->fd < 0) {
		close(fd);
	}
	return n;
}

void sysread_close(struct sysread_file *rf, struct sysread_fds *fds)
{
	if (rf->fd < 0)
		return;
	close(rf->fd);
	rf->fd = -1;
	fds->kept--;
}

int sysread_task_open(struct sysread_task *t, int pid)
{
	char path[32];

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->task_fd = -1;
	snprintf(path, sizeof(path), "/proc/%d", pid);
	/* Held, the directory stays this process's after its pid is reused. */
	t->proc_fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->proc_fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	t->task_fd = openat(t->proc_fd, "task",
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->task_fd < 0) {
		int err = errno == ENOENT ? -ESRCH : -errno;

		close(t->proc_fd);
		t->proc_fd = -1;
		return err;
	}
	t->rescan = true;
	t->has_clock = !clock_getcpuclockid(pid, &t->clock);
	return 0;
}

static void drop_thread(struct sysread_thread *th, struct sysread_fds *fds)
{
	sysread_close(&th->stat, fds);
	sysread_close(&th->sched, fds);
	free(th->line);
}

void sysread_task_close(struct sysread_task *t, struct sysread_fds *fds)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		drop_thread(&t->v[i], fds);
	free(t->v);
	if (t->task_fd >= 0)
		close(t->task_fd);
	if (t->proc_fd >= 0)
		close(t->proc_fd);
	memset(t, 0, sizeof(*t));
	t->proc_fd = t->task_fd = -1;
}

static int by_tid(const void *a, const void *b)
{
	const struct sysread_thread *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* A tid seen in the scan: marked, or added unread (its files opened later). */
static int see_thread(struct sysread_task *t, int tid, size_t sorted)
{
	struct sysread_thread key = { .tid = tid }, *th;

	th = sorted ? bsearch(&key, t->v, sorted, sizeof(*t->v), by_tid) : NULL;
	if (th) {
		th->seen = true;
		return 0;
	}
	th = growarr_push((void **)&t->v, &t->n, &t->cap, sizeof(*t->v));
	if (!th)
		return -ENOMEM;
	*th = (struct sysread_thread){
		.tid = tid, .seen = true, .stat.fd = -1, .sched.fd = -1,
	};
	return 0;
}

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* The task directory read again: threads come and go, at most the cap. */
static int scan_threads(struct sysread_task *t, struct sysread_fds *fds)
{
	char buf[16384];
	size_t i, sorted = t->n, seen = 0;
	long n, at;
	int err = 0;

	for (i = 0; i < t->n; i++)
		t->v[i].seen = false;
	t->left_out = 0;
	if (lseek(t->task_fd, 0, SEEK_SET) < 0)
		return -errno;
	while (!err && (n = syscall(SYS_getdents64, t->task_fd, buf, sizeof(buf))) > 0) {
		for (at = 0; !err && at < n;) {
			struct linux_dirent64 *d = (void *)(buf + at);
			char *end;
			long tid = strtol(d->d_name, &end, 10);

			at += d->d_reclen;
			if (*end || tid <= 0 || tid > 0x7fffffff)
				continue;
			if (seen == SYSREAD_THREADS_MAX) {
				t->left_out++;
				continue;
			}
			seen++;
			err = see_thread(t, (int)tid, sorted);
		}
	}
	if (n < 0 && !err)
		err = errno == ENOENT ? -ESRCH : -errno;
	for (i = 0; i < t->n;) {
		if (t->v[i].seen) {
			i++;
			continue;
		}
		drop_thread(&t->v[i], fds);
		t->v[i] = t->v[--t->n];
	}
	qsort(t->v, t->n, sizeof(*t->v), by_tid);
	t->rescan = false;
	return err;
}

/* A thread's stat line read again if it ran since; -ESRCH if it is gone. */
static int update_thread(struct sysread_task *t, struct sysread_thread *th,
			 struct sysread_fds *fds)
{
	char name[40], sched[sizeof(th->sched_text)], line[SYSREAD_LINE_MAX];
	unsigned long long blkio = 0;
	ssize_t n;
	size_t len;
	char *copy;

	th->fresh = true;
	snprintf(name, sizeof(name), "%d/schedstat", th->tid);
	n = sysread_at(&th->sched, fds, t->task_fd, name, sched, sizeof(sched));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	th->runtime = strtoull(sched, NULL, 10);
	/* Kernels without schedstats say "0 0 0": every line is read then. */
	th->active = !th->line || strcmp(sched, th->sched_text) || !strncmp(sched, "0 ", 2);
	if (!th->active)
		return 0;
	snprintf(name, sizeof(name), "%d/stat", th->tid);
	n = sysread_at(&th->stat, fds, t->task_fd, name, line, sizeof(line));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	len = sysfmt_stat_clean(line, (size_t)n);
	if (!len)
		return -EPROTO;
	copy = realloc(th->line, len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, line, len);
	th->line = copy;
	th->len = (uint16_t)len;
	/* Parsed once as it is read: the disk's IO % sums it every sample. */
	sysfmt_stat_field(copy, len, SYSREAD_STAT_BLKIO, &blkio);
	th->blkio = (uint32_t)blkio;
	memcpy(th->sched_text, sched, sizeof(sched));
	return 0;
}

/* The task's CPU time, all threads' and the exited ones', in ns. */
static bool task_runtime(const struct sysread_task *t, uint64_t *ns)
{
	struct timespec ts;

	if (!t->has_clock || clock_gettime(t->clock, &ts))
		return false;
	*ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return true;
}

/* Reads the threads not read yet (the active ones only, active_only). */
static int update_threads(struct sysread_task *t, struct sysread_fds *fds,
			  bool active_only)
{
	size_t i;
	int err;

	for (i = 0; i < t->n; i++) {
		struct sysread_thread *th = &t->v[i];

		if (th->fresh || (active_only && !th->active))
			continue;
		err = update_thread(t, th, fds);
		if (err == -ESRCH) {
			/* Gone since the scan: left out of this sample. */
			free(th->line);
			th->line = NULL;
			t->rescan = true;
			t->gated = false;
		} else if (err && err != -EPROTO) {
			return err;	/* -EPROTO: not a stat line, not written */
		}
	}
	return 0;
}

static uint64_t runtime_sum(const struct sysread_task *t)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < t->n; i++)
		sum += t->v[i].runtime;
	return sum;
}

/*
 * The threads that ran last time are read first; if the task's CPU time,
 * read after them, is theirs and the others' as last read plus what
 * exited threads took, no other thread ran (every term only grows, so
 * equality leaves none room) and their lines stand.  Otherwise every
 * thread is read, and what the exited took is taken anew.
 */
int sysread_task_update(struct sysread_task *t, struct sysread_fds *fds)
{
	uint64_t now, sum;
	struct stat st;
	size_t i;
	int err;

	if (fstat(t->task_fd, &st))
		return -errno;
	if (t->rescan || st.st_nlink != t->nlink) {
		err = scan_threads(t, fds);
		if (err)
			return err;
		t->nlink = st.st_nlink;
		t->gated = false;
	}
	for (i = 0; i < t->n; i++)
		t->v[i].fresh = false;
	if (t->gated) {
		err = update_threads(t, fds, true);
		if (err)
			return err;
		sum = runtime_sum(t);
		if (t->gated && task_runtime(t, &now) && now >= sum &&
		    now - sum == t->exited_ns)
			return t->n ? 0 : -ESRCH;
	}
	err = update_threads(t, fds, false);
	if (err)
		return err;
	sum = runtime_sum(t);
	t->gated = !t->rescan && task_runtime(t, &now) && now >= sum;
	t->exited_ns = t->gated ? now - sum : 0;
	return t->n ? 0 : -ESRCH;
}
