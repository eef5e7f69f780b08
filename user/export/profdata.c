// SPDX-License-Identifier: MIT
/* Reading a PROF_ directory's raw data back. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "msprof/protocol.h"
#include "profdata.h"
#include "profdir.h"
#include "safe_open.h"

/* Appends one element to a growing array. */
static void *push(void **arr, size_t *n, size_t *cap, size_t size)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 1024;
		void *p = realloc(*arr, ncap * size);

		if (!p)
			return NULL;
		*arr = p;
		*cap = ncap;
	}
	return (char *)*arr + (*n)++ * size;
}

/* The name blob: the API's name, then one string per argument. */
static int describe_api(struct api_desc *d, const struct msprof_name_rec *nr,
			size_t len)
{
	const char *p, *end;
	int i;

	free(d->name);
	memset(d, 0, sizeof(*d));
	/* One more byte: a NUL even if the record was cut short. */
	d->name = calloc(1, len + 1);
	if (!d->name)
		return -ENOMEM;
	memcpy(d->name, nr->names, len);
	d->layer = nr->layer;
	end = d->name + len;
	p = d->name + strlen(d->name) + 1;
	for (i = 0; i < MSPROF_PROBE_ARGS && p < end; i++) {
		d->kinds[i] = nr->arg_kinds[i];
		d->args[i] = p;
		p += strlen(p) + 1;
	}
	return 0;
}

static void latest(struct profdata *p, uint64_t ns)
{
	if (ns > p->last_ns)
		p->last_ns = ns;
}

/* recfile_read_fd() passes only lengths a record of its type can have. */
static int visit(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct profdata *p = ctx;
	const struct msprof_name_rec *nr = body;
	const struct msprof_devtask_rec *dt = body;
	struct devtask *task;
	void *slot;

	switch (type) {
	case MSPROF_REC_NAME:
		if (nr->id >= MSPROF_MAX_APIS)
			return 0;
		return describe_api(&p->apis_desc[nr->id], nr, len - sizeof(*nr));
	case MSPROF_REC_API:
		slot = push((void **)&p->apis, &p->napis, &p->cap_apis,
			    sizeof(*p->apis));
		if (!slot)
			return -ENOMEM;
		memcpy(slot, body, sizeof(*p->apis));	/* the reader checked len */
		latest(p, p->apis[p->napis - 1].end_ns);
		return 0;
	case MSPROF_REC_IOCTL:
		slot = push((void **)&p->ioctls, &p->nioctls, &p->cap_ioctls,
			    sizeof(*p->ioctls));
		if (!slot)
			return -ENOMEM;
		/* A record without payload reads as payload_len 0. */
		memset(slot, 0, sizeof(*p->ioctls));
		memcpy(slot, body, len < sizeof(*p->ioctls) ? len : sizeof(*p->ioctls));
		latest(p, p->ioctls[p->nioctls - 1].io.end_ns);
		return 0;
	case MSPROF_REC_DEVTASK:
		task = push((void **)&p->tasks, &p->ntasks, &p->cap_tasks,
			    sizeof(*p->tasks));
		if (!task)
			return -ENOMEM;
		task->rec = *dt;
		snprintf(task->name, sizeof(task->name), "%.*s",
			 (int)(len - sizeof(*dt)), dt->name);
		latest(p, dt->end_ns);
		return 0;
	}
	return 0;	/* a newer record type: skip it */
}

/* By the task's own tid, which device records name, then by start. */
static int by_tid_start(const void *a, const void *b)
{
	const struct msprof_api_event *x = a, *y = b;

	if (x->ns_tid != y->ns_tid)
		return x->ns_tid < y->ns_tid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* The number after key in info.json (which msprof writes), 0 if absent. */
static unsigned long long json_number(const char *text, const char *key)
{
	const char *at = strstr(text, key);

	return at ? strtoull(at + strlen(key), NULL, 10) : 0;
}

#define START_INFO "start_info"

/* info.json is small: a bigger one is not ours. */
#define INFO_MAX 65536

static int read_small(int dirfd, const char *name, char *text, size_t cap)
{
	struct stat st;
	size_t n = 0;
	int err = 0, fd = open_file_beneath(dirfd, name, &st);

	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_size >= cap)
		err = -EFBIG;
	while (!err && n < (size_t)st.st_size) {
		ssize_t got = read(fd, text + n, (size_t)st.st_size - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			err = got ? -errno : -EPROTO;
		else
			n += (size_t)got;
	}
	close(fd);
	text[n] = '\0';
	return err;
}

static void set_incomplete(struct profdata *p, const char *reason)
{
	p->incomplete = true;
	snprintf(p->incomplete_reason, sizeof(p->incomplete_reason), "%s",
		 reason);
}

/* A window msprof never stopped; where its device data went, if known. */
static void set_unstopped(struct profdata *p, const char *device)
{
	p->incomplete = true;
	snprintf(p->incomplete_reason, sizeof(p->incomplete_reason),
		 "the controller ended before stop%s%s", device ? "; device data " : "",
		 device ? device : "");
}

/* The state the writer gave the window; none (older windows): complete. */
static void read_state(struct profdata *p, const char *text)
{
	char state[32], reason[384];
	int err = msprof_json_get_str(text, "state", state, sizeof(state));

	if (err == -ENOENT || (!err && !strcmp(state, "complete")))
		return;
	if (!err && !strcmp(state, "collecting"))
		set_unstopped(p, !msprof_json_get_str(text, "device_status",
						      reason, sizeof(reason)) ?
			      reason : NULL);
	else if (!err && !strcmp(state, "incomplete") &&
		 !msprof_json_get_str(text, "incomplete_reason", reason,
				      sizeof(reason)))
		set_incomplete(p, reason);
	else
		set_incomplete(p, "state unknown");
}

static int read_info(struct profdata *p, int dirfd)
{
	const char *pid;
	char *text;
	int err;

	text = malloc(INFO_MAX);
	if (!text)
		return -ENOMEM;
	err = read_small(dirfd, PROFDIR_INFO, text, INFO_MAX);
	if (err)
		goto out;
	read_state(p, text);
	/* An unfinished one may not know it yet: the records will say. */
	pid = strstr(text, "\"pid\":");
	if (!pid && !p->incomplete) {
		err = -EPROTO;
		goto out;
	}
	p->pid = pid ? atoi(pid + 6) : 0;
	p->lost_events = json_number(text, "\"lost_events\":");
	p->end_mono_ns = json_number(text, "\"end\": {\"mono_ns\":");
	if (msprof_json_get_str(text, "comm", p->comm, sizeof(p->comm)))
		snprintf(p->comm, sizeof(p->comm), "task");
out:
	free(text);
	return err;
}

/*
 * A crash before stop leaves start_info but no info.json: the data still
 * loads, with what the records say of the task.
 */
static int read_start_only(struct profdata *p, int dirfd)
{
	struct stat st;
	int fd = open_file_beneath(dirfd, START_INFO, &st);

	if (fd < 0)
		return fd == -ENOENT ? fd : -ENODATA;
	close(fd);
	snprintf(p->comm, sizeof(p->comm), "task");
	set_incomplete(p, "no info.json: the controller ended before stop");
	return 0;
}

/* Reads one data file; only running out of memory stops the load. */
static int load_file(struct profdata *p, int dirfd, const char *name)
{
	struct profdata_problem *pb;
	struct recfile_stop stop = { 0 };
	struct stat st;
	int err, fd;

	fd = open_file_beneath(dirfd, name, &st);
	if (fd == -ENOENT)
		return 0;
	err = fd < 0 ? fd : recfile_read_fd(fd, NULL, visit, p, &stop);
	if (fd >= 0)
		close(fd);
	if (!err || err == -ENOMEM)
		return err;
	if (p->nproblems++ >= PROFDATA_MAX_PROBLEMS)
		return 0;
	pb = &p->problems[p->nproblems - 1];
	snprintf(pb->file, sizeof(pb->file), "%s", name);
	pb->err = err;
	pb->stop = stop;
	return 0;
}

/* A device_<N> entry's data file; the window's other entries are not. */
static int load_device(int dirfd, const char *entry, void *ctx)
{
	char name[NAME_MAX + sizeof(PROFDIR_DEVICE_FILE) + 1];

	if (strncmp(entry, "device_", 7))
		return 0;
	snprintf(name, sizeof(name), "%s/%s", entry, PROFDIR_DEVICE_FILE);
	return load_file(ctx, dirfd, name);
}

int profdata_load_at(struct profdata *p, int dirfd)
{
	int err;

	memset(p, 0, sizeof(*p));
	err = read_info(p, dirfd);
	if (err == -ENOENT)
		err = read_start_only(p, dirfd);
	if (!err)
		err = load_file(p, dirfd, PROFDIR_HOST_FILE);
	if (!err)
		err = dir_for_each(dirfd, load_device, p);
	if (err) {
		profdata_free(p);
		return err;
	}
	if (!p->pid && p->napis)
		p->pid = (int)p->apis[0].tgid;
	else if (!p->pid && p->nioctls)
		p->pid = (int)p->ioctls[0].io.tgid;
	if (!p->end_mono_ns)	/* the window never closed */
		p->end_mono_ns = p->last_ns;
	if (p->napis)	/* qsort() wants an array, even of nothing */
		qsort(p->apis, p->napis, sizeof(*p->apis), by_tid_start);
	return 0;
}

int profdata_load(struct profdata *p, const char *dir)
{
	int err, fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		memset(p, 0, sizeof(*p));
		return -errno;
	}
	err = profdata_load_at(p, fd);
	close(fd);
	return err;
}

void profdata_strerror(char *buf, size_t len, int err)
{
	switch (err) {
	case -ENOENT:
		snprintf(buf, len, "not a msprof window (no info.json or start_info)");
		break;
	case -ENODATA:
		snprintf(buf, len, "no info.json, and start_info is not a regular file");
		break;
	case -EPROTO:
		snprintf(buf, len, "info.json: not one msprof wrote (no pid)");
		break;
	case -EFBIG:
		snprintf(buf, len, "info.json: too large to be msprof's");
		break;
	case -ENOMEM:
		snprintf(buf, len, "%s", strerror(-err));
		break;
	default:
		snprintf(buf, len, "info.json: %s", open_file_strerror(err));
	}
}

void profdata_free(struct profdata *p)
{
	size_t i;

	for (i = 0; i < MSPROF_MAX_APIS; i++)
		free(p->apis_desc[i].name);
	free(p->apis);
	free(p->ioctls);
	free(p->tasks);
	memset(p, 0, sizeof(*p));
}

const struct msprof_api_event *profdata_call_at(const struct profdata *p,
						uint32_t tid, uint64_t ns)
{
	size_t lo = 0, hi = p->napis;

	/* The first call on tid that starts after ns... */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct msprof_api_event *e = &p->apis[mid];

		if (e->ns_tid < tid || (e->ns_tid == tid && e->start_ns <= ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ...then back to the latest-starting one that still holds ns. */
	while (lo-- > 0) {
		const struct msprof_api_event *e = &p->apis[lo];

		if (e->ns_tid != tid)
			break;
		if (e->end_ns >= ns)
			return e;
		if (!e->depth)
			break;	/* an outermost call that ended: none holds ns */
	}
	return NULL;
}
