// SPDX-License-Identifier: MIT
/* Reading what a PROF_ directory says of its window. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msprof/protocol.h"
#include "profdir.h"
#include "profmeta.h"
#include "safe_open.h"

/* Metadata files are small: a bigger one is not ours. */
#define META_MAX 65536

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

/* The number after key in info.json (which msprof writes), 0 if absent. */
static unsigned long long json_number(const char *text, const char *key)
{
	const char *at = strstr(text, key);

	return at ? strtoull(at + strlen(key), NULL, 10) : 0;
}

/* A string-valued number, as start_info and end_info hold them. */
static uint64_t json_str_number(const char *text, const char *key)
{
	char val[32];

	if (msprof_json_get_str(text, key, val, sizeof(val)))
		return 0;
	return strtoull(val, NULL, 10);
}

static void set_incomplete(struct profmeta *m, const char *reason)
{
	m->incomplete = true;
	snprintf(m->incomplete_reason, sizeof(m->incomplete_reason), "%s",
		 reason);
}

/* A window msprof never stopped; where its device data went, if known. */
static void set_unstopped(struct profmeta *m, const char *device)
{
	m->incomplete = true;
	snprintf(m->incomplete_reason, sizeof(m->incomplete_reason),
		 "the controller ended before stop%s%s", device ? "; device data " : "",
		 device ? device : "");
}

/* The state the writer gave the window; none (older windows): complete. */
static void read_state(struct profmeta *m, const char *text)
{
	char state[32], reason[384];
	int err = msprof_json_get_str(text, "state", state, sizeof(state));

	if (err == -ENOENT || (!err && !strcmp(state, "complete")))
		return;
	if (!err && !strcmp(state, "collecting"))
		set_unstopped(m, !msprof_json_get_str(text, "device_status",
						      reason, sizeof(reason)) ?
			      reason : NULL);
	else if (!err && !strcmp(state, "incomplete") &&
		 !msprof_json_get_str(text, "incomplete_reason", reason,
				      sizeof(reason)))
		set_incomplete(m, reason);
	else
		set_incomplete(m, "state unknown");
}

static int read_info(struct profmeta *m, const char *text)
{
	const char *pid;

	read_state(m, text);
	/* An unfinished one may not know it yet: the records will say. */
	pid = strstr(text, "\"pid\":");
	if (!pid && !m->incomplete)
		return -EPROTO;
	m->pid = pid ? atoi(pid + 6) : 0;
	m->lost_events = json_number(text, "\"lost_events\":");
	m->unfinished = json_number(text, "\"unfinished_at_stop\":");
	m->window = (unsigned int)json_number(text, "\"window\":");
	if (msprof_json_get_str(text, "comm", m->comm, sizeof(m->comm)))
		snprintf(m->comm, sizeof(m->comm), "task");
	return 0;
}

static void read_clock(struct clock_pair *c, const char *text,
		       const char *real_us_key)
{
	c->real_ns = json_str_number(text, real_us_key) * 1000;
	c->raw_ns = json_str_number(text, "clockMonotonicRaw");
	c->mono_ns = json_str_number(text, "clockMonotonic");
}

int profmeta_read(struct profmeta *m, int dirfd)
{
	int err, start_err;
	char *text;

	memset(m, 0, sizeof(*m));
	m->rank_id = -1;
	text = malloc(META_MAX);
	if (!text)
		return -ENOMEM;
	start_err = read_small(dirfd, "start_info", text, META_MAX);
	if (!start_err)
		read_clock(&m->start, text, "collectionTimeBegin");
	if (!read_small(dirfd, "end_info", text, META_MAX))
		read_clock(&m->end, text, "collectionTimeEnd");
	err = read_small(dirfd, PROFDIR_INFO, text, META_MAX);
	if (!err) {
		err = read_info(m, text);
	} else if (err == -ENOENT && start_err) {
		err = start_err == -ENOENT ? -ENOENT : -ENODATA;
	} else if (err == -ENOENT) {
		/* A crash before stop: the records say what the task was. */
		snprintf(m->comm, sizeof(m->comm), "task");
		set_incomplete(m, "no info.json: the controller ended before stop");
		err = 0;
	}
	free(text);
	return err;
}

void profmeta_strerror(char *buf, size_t len, int err)
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

/* raw(mono): the raw clock ran at end's rate against the monotonic one. */
uint64_t profmeta_epoch_ns(const struct profmeta *m, uint64_t mono_ns)
{
	const struct clock_pair *s = &m->start, *e = &m->end;
	int64_t d = (int64_t)(mono_ns - s->mono_ns);
	uint64_t epoch0 = s->real_ns / 1000 * 1000;

	if (e->mono_ns > s->mono_ns && e->raw_ns > s->raw_ns)
		d = (int64_t)((__int128)d * (int64_t)(e->raw_ns - s->raw_ns) /
			      (int64_t)(e->mono_ns - s->mono_ns));
	return epoch0 + (uint64_t)d;
}
