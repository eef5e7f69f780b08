// SPDX-License-Identifier: MIT
/*
 * Reading a PROF_ directory back, and the timeline written from it.  The
 * input holds the directory's files one after the other, each starting with
 * the PART marker: msprof_ebpf_window.json, host_trace.data, device 0's and
 * device 1's task_time.data, then a CANN runtime's raw files, device 0's
 * clocks and osrt's syscall and pthread lines (files[]).  A file the input
 * does not reach is left out.  Each run builds its own directory under
 * $TMPDIR and removes it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/profdata.h"
#include "export/timeline.h"
#include "common/proflayout.h"

#define PART "FUZZPART"
#define DEV(n) "device_" #n "/" PROFDIR_DEVICE_FILE

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parents first: made in this order, removed in the reverse. */
static const char *const dirs[] = {
	"host", PROFDIR_HOST_DATA, "device_0", "device_0/data",
	"device_1", "device_1/data",
};

/* Ours first, then what a CANN runtime writes (docs/output.md). */
static const char *const files[] = {
	PROFDIR_FACTS, PROFDIR_HOST_FILE, DEV(0), DEV(1),
	"host/data/unaging.api_event.data.slice_0",
	"host/data/aging.compact.task_track.slice_0",
	"host/data/aging.compact.node_basic_info.slice_0",
	"host/data/aging.compact.memcpy_info.slice_0",
	"host/data/unaging.additional.hccl_info.slice_0",
	"host/data/unaging.additional.tensor_info.slice_0",
	"host/data/unaging.additional.type_info_dic.slice_0",
	"host/data/unaging.additional.hash_dic.slice_0",
	"device_0/info.json.0", "device_0/host_start.log.0",
	"device_0/dev_start.log.0",
	"device_0/data/stars_soc.data.0.slice_0",
	"device_0/data/ts_track.data.0.slice_0",
	/* msprof's text files of --host-sys=osrt, read as its analysis reads them. */
	"host/data/host_syscall.data.slice_0",
	"host/data/host_pthreadcall.data.slice_0",
};

#define NR_DIRS (sizeof(dirs) / sizeof(dirs[0]))
#define NR_FILES (sizeof(files) / sizeof(files[0]))

static void write_file(int dfd, const char *path, const uint8_t *p, size_t n)
{
	int fd = openat(dfd, path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, p, n) != (ssize_t)n || close(fd))
		abort();
}

/* Splits the input at PART markers into the directory's files. */
static void build(int dfd, const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	size_t i;

	for (i = 0; i < NR_DIRS; i++)
		if (mkdirat(dfd, dirs[i], 0700))
			abort();
	for (i = 0; i < NR_FILES; i++) {
		const uint8_t *next;

		p = memmem(p, end - p, PART, strlen(PART));
		if (!p)
			return;
		p += strlen(PART);
		next = memmem(p, end - p, PART, strlen(PART));
		write_file(dfd, files[i], p, (next ? next : end) - p);
	}
}

static void clean(int dfd)
{
	size_t i;

	for (i = 0; i < NR_FILES; i++)
		if (unlinkat(dfd, files[i], 0) && errno != ENOENT)
			abort();
	for (i = NR_DIRS; i-- > 0;)
		if (unlinkat(dfd, dirs[i], AT_REMOVEDIR))
			abort();
}

/* What profdata.h promises of a loaded directory. */
static void check_loaded(const struct profdata *p)
{
	size_t i;

	if (!memchr(p->meta.comm, '\0', sizeof(p->meta.comm)))
		abort();
	for (i = 0; i < MSPROF_MAX_APIS; i++) {
		const struct api_desc *d = &p->apis_desc[i];
		int j;

		if (!d->name)
			continue;
		(void)strlen(d->name);
		for (j = 0; j < MSPROF_PROBE_ARGS; j++)
			if (d->args[j])
				(void)strlen(d->args[j]);
	}
	for (i = 0; i < p->ntasks; i++) {
		if (p->tasks[i].op >= p->nops ||
		    profdata_task_op(p, &p->tasks[i])->name >= p->names.n)
			abort();
		(void)strlen(strtab_str(&p->names, profdata_task_op(p, &p->tasks[i])->name));
		if (p->tasks[i].conn > p->ncalls)
			abort();
		/* The load's sweep and the lookup agree. */
		if (p->tasks[i].conn != profdata_conn_at(p, p->tasks[i].host_tid,
							 p->tasks[i].submit_ns))
			abort();
	}
	for (i = 0; i < p->ncalls; i++) {
		const struct profcall *c = &p->calls[i], *at;

		if (i && (c[-1].ns_tid > c->ns_tid ||
			  (c[-1].ns_tid == c->ns_tid &&
			   c[-1].start_ns > c->start_ns)))
			abort();	/* not sorted */
		at = profdata_call(p, profdata_conn_at(p, c->ns_tid, c->start_ns));
		if (at && (at->ns_tid != c->ns_tid ||
			   at->start_ns > c->start_ns || at->end_ns < c->start_ns))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	char dir[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	struct profdata *p;
	int dfd;

	if (!null) {
		null = fopen("/dev/null", "we");
		if (!null)
			abort();
	}
	snprintf(dir, sizeof(dir), "%s/fuzz_profdata.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		abort();
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		abort();
	build(dfd, data, size);

	/* Large: on the heap, so ASan sees reads past its end. */
	p = malloc(sizeof(*p));
	if (!p)
		abort();
	/* As export does: a directory that does not load is not freed. */
	if (!profdata_load(p, dir)) {
		check_loaded(p);
		if (timeline_write(null, p) > 0)
			abort();
		profdata_free(p);
	}
	free(p);

	clean(dfd);
	close(dfd);
	if (rmdir(dir))
		abort();
	return 0;
}
