// SPDX-License-Identifier: MIT
/* Every process of the system, for --host-sys-usage's per-process files. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/growarr.h"
#include "sysusage.h"

int sysusage_open(struct sysusage *u)
{
	memset(u, 0, sizeof(*u));
	u->proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	u->rescan = true;
	return u->proc_fd < 0 ? -errno : 0;
}

static void drop(struct sysusage_proc *p, struct sysread_fds *fds)
{
	sysread_close(&p->stat, fds);
	sysread_close(&p->statm, fds);
	sysread_close(&p->comm, fds);
}

void sysusage_close(struct sysusage *u, struct sysread_fds *fds)
{
	size_t i;

	for (i = 0; i < u->n; i++)
		drop(&u->v[i], fds);
	free(u->v);
	if (u->proc_fd >= 0)
		close(u->proc_fd);
	memset(u, 0, sizeof(*u));
	u->proc_fd = -1;
}

static int by_pid(const void *a, const void *b)
{
	const struct sysusage_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

struct scan {
	struct sysusage *u;
	size_t sorted;
};

static int see(int dir, const char *name, void *ctx)
{
	struct scan *sc = ctx;
	struct sysusage *u = sc->u;
	struct sysusage_proc key, *p;
	char *end;
	long pid = strtol(name, &end, 10);

	(void)dir;
	if (*end || pid <= 0 || pid > 0x7fffffff)
		return 0;
	key.pid = (int)pid;
	p = sc->sorted ? bsearch(&key, u->v, sc->sorted, sizeof(*u->v), by_pid) : NULL;
	if (p) {
		p->seen = true;
		return 0;
	}
	if (u->n == SYSREAD_PIDS_MAX) {
		u->left_out++;
		return 0;
	}
	p = growarr_push((void **)&u->v, &u->n, &u->cap, sizeof(*u->v));
	if (!p)
		return -ENOMEM;
	*p = (struct sysusage_proc){
		.pid = (int)pid, .seen = true,
		.stat.fd = -1, .statm.fd = -1, .comm.fd = -1,
	};
	return 0;
}

int sysusage_scan(struct sysusage *u, struct sysread_fds *fds,
		  void (*gone)(int pid, void *ctx), void *ctx)
{
	struct scan sc = { .u = u, .sorted = u->n };
	struct stat st;
	size_t i;
	int err;

	if (fstat(u->proc_fd, &st))
		return -errno;
	if (!u->rescan && st.st_nlink == u->nlink)
		return 0;
	for (i = 0; i < u->n; i++)
		u->v[i].seen = false;
	u->left_out = 0;
	err = fsutil_dir_for_each(u->proc_fd, see, &sc);
	for (i = 0; i < u->n;) {
		if (u->v[i].seen) {
			i++;
			continue;
		}
		gone(u->v[i].pid, ctx);
		drop(&u->v[i], fds);
		u->v[i] = u->v[--u->n];
	}
	qsort(u->v, u->n, sizeof(*u->v), by_pid);
	u->nlink = st.st_nlink;
	u->rescan = false;
	return err;
}

/* /proc/<pid>/<what> of process p into buf; its length, or -errno. */
static ssize_t read_of(struct sysusage *u, struct sysusage_proc *p,
		       struct sysread_file *f, const char *what,
		       struct sysread_fds *fds, char *buf, size_t cap)
{
	char name[32];

	snprintf(name, sizeof(name), "%d/%s", p->pid, what);
	return sysread_at(f, fds, u->proc_fd, name, buf, cap);
}

bool sysusage_read(struct sysusage *u, size_t i, struct sysread_fds *fds,
		   const char *cpu_total, size_t cpu_len,
		   struct sysbuf *cpu, struct sysbuf *mem)
{
	struct sysusage_proc *p = &u->v[i];
	char line[SYSREAD_LINE_MAX], statm[256], comm[64];
	ssize_t n, m, c;
	size_t len = 0;

	n = cpu ? read_of(u, p, &p->stat, "stat", fds, line, sizeof(line)) : 0;
	m = mem ? read_of(u, p, &p->statm, "statm", fds, statm, sizeof(statm)) : 0;
	c = read_of(u, p, &p->comm, "comm", fds, comm, sizeof(comm));
	if (n < 0 || m < 0) {
		u->rescan = true;
		return false;
	}
	/* A name it could not be read by: msprof's own default. */
	if (c <= 0)
		strcpy(comm, "self");
	sysfmt_comm_clean(comm);
	if (cpu)
		len = sysfmt_stat_clean(line, (size_t)n);
	if (cpu && len) {
		sysbuf_add(cpu, line, len);
		sysbuf_printf(cpu, "\nProcessName:%s\n", comm);
		sysbuf_add(cpu, cpu_total, cpu_len);
	}
	if (mem && m > 0 && statm[m - 1] == '\n') {
		sysbuf_add(mem, statm, (size_t)m);
		sysbuf_printf(mem, "ProcessName:%s\n", comm);
	}
	return true;
}
