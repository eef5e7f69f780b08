// SPDX-License-Identifier: MIT
/* Reading what a PROF_ directory says of its window. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/json.h"
#include "msprof/protocol.h"
#include "common/proflayout.h"
#include "common/printable.h"
#include "profmeta.h"
#include "common/safe_open.h"

/* Metadata files are small: a bigger one is not ours. */
#define META_MAX 65536

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

/* {"mono_ns": .., "raw_ns": .., "real_ns": ..} after "key": in text. */
static void read_pair(struct clock_pair *c, const char *text, const char *key)
{
	char k[32];
	const char *at;

	snprintf(k, sizeof(k), "\"%s\":", key);
	at = strstr(text, k);
	if (!at)
		return;
	c->mono_ns = (uint64_t)json_find_number(at, "mono_ns");
	c->raw_ns = (uint64_t)json_find_number(at, "raw_ns");
	c->real_ns = (uint64_t)json_find_number(at, "real_ns");
}

static void copy_str(const char *text, const char *key, char *out, size_t len)
{
	if (msprof_json_get_str(text, key, out, len))
		*out = '\0';
}

/* msprof-ebpf's account of the window (PROFDIR_FACTS). */
static int read_facts(struct profmeta *m, const char *text)
{
	const char *pid;

	read_state(m, text);
	/* An unfinished one may not know it yet: the records will say. */
	pid = strstr(text, "\"pid\":");
	if (!pid && !m->incomplete)
		return -EPROTO;
	m->pid = pid ? atoi(pid + 6) : 0;
	m->ns_pid = (int)json_find_number(text, "ns_pid");
	if (strstr(text, "\"rank_id\":"))
		m->rank_id = (int)json_find_number(text, "rank_id");
	m->lost_events = (unsigned long long)json_find_number(text, "lost_events");
	m->window = (unsigned int)json_find_number(text, "window");
	if (msprof_json_get_str(text, "comm", m->comm, sizeof(m->comm)))
		snprintf(m->comm, sizeof(m->comm), "task");
	copy_str(text, "hostname", m->hostname, sizeof(m->hostname));
	copy_str(text, "hostUid", m->host_uid, sizeof(m->host_uid));
	/* The end pair follows the start's: each is searched from its key. */
	read_pair(&m->start, text, "start");
	read_pair(&m->end, text, "end");
	return 0;
}

/*
 * No account (msprof died as the window began, or it was removed): what
 * host/ says.  Its start_info and host_start.log hold the start's three
 * clocks (cntvct is CLOCK_MONOTONIC); the records say the rest.
 */
static void read_host_meta(struct profmeta *m, int dirfd, char *text)
{
	const char *at;

	struct stat st;
	int fd = safe_open_beneath(dirfd, PROFDIR_HOST_FILE, &st);

	snprintf(m->comm, sizeof(m->comm), "task");
	/* No host file of ours either: Huawei's msprof wrote it, and whole. */
	m->cann_only = fd == -ENOENT;
	if (fd >= 0)
		close(fd);
	if (!m->cann_only)
		set_incomplete(m, "no " PROFDIR_FACTS ": the controller ended before stop");
	if (!safe_read_small_beneath(dirfd, PROFDIR_HOST_START, text, META_MAX)) {
		m->start.real_ns = json_str_number(text, "collectionTimeBegin") * 1000;
		m->start.raw_ns = json_str_number(text, "clockMonotonicRaw");
	}
	/* Ours pairs CLOCK_MONOTONIC as its cntvct; a runtime's, a counter. */
	if (!m->cann_only &&
	    !safe_read_small_beneath(dirfd, PROFDIR_HOST_START_LOG, text, META_MAX)) {
		at = strstr(text, "\ncntvct:");
		m->start.mono_ns = at ? strtoull(at + 8, NULL, 10) : 0;
	}
	if (!safe_read_small_beneath(dirfd, PROFDIR_HOST_END, text, META_MAX)) {
		m->end.real_ns = json_str_number(text, "collectionTimeEnd") * 1000;
		m->end.raw_ns = json_str_number(text, "clockMonotonicRaw");
	}
	if (m->cann_only) {
		m->start.mono_ns = m->start.raw_ns;
		m->end.mono_ns = m->end.raw_ns;
	}
	if (!safe_read_small_beneath(dirfd, PROFDIR_HOST_INFO, text, META_MAX)) {
		m->ns_pid = (int)json_str_number(text, "pid");
		if (strstr(text, "\"rank_id\":"))
			m->rank_id = (int)json_find_number(text, "rank_id");
		copy_str(text, "pid_name", m->comm, sizeof(m->comm));
		copy_str(text, "hostname", m->hostname, sizeof(m->hostname));
		copy_str(text, "hostUid", m->host_uid, sizeof(m->host_uid));
		if (!*m->comm)
			snprintf(m->comm, sizeof(m->comm), "task");
	}
}

/* rate_q48: the raw clock's rate against the monotonic one over the window. */
static void profmeta_set_rate(struct profmeta *m)
{
	const struct clock_pair *s = &m->start, *e = &m->end;

	m->rate_q48 = 0;
	if (e->mono_ns > s->mono_ns && e->raw_ns > s->raw_ns)
		m->rate_q48 = (uint64_t)(((unsigned __int128)(e->raw_ns - s->raw_ns) << 48) /
					 (e->mono_ns - s->mono_ns));
}

int profmeta_read(struct profmeta *m, int dirfd)
{
	int err, start_err;
	struct stat st;
	char *text;

	memset(m, 0, sizeof(*m));
	m->rank_id = -1;
	text = malloc(META_MAX);
	if (!text)
		return -ENOMEM;
	err = safe_read_small_beneath(dirfd, PROFDIR_FACTS, text, META_MAX);
	if (!err) {
		err = read_facts(m, text);
	} else if (err == -ENOENT) {
		start_err = safe_open_beneath(dirfd, PROFDIR_HOST_START, &st);
		if (start_err >= 0) {
			close(start_err);
			/* A crash before stop: the records say what the task was. */
			read_host_meta(m, dirfd, text);
			err = 0;
		} else {
			err = start_err == -ENOENT ? -ENOENT : -ENODATA;
		}
	}
	free(text);
	if (err)
		return err;
	profmeta_set_rate(m);
	/*
	 * Whoever could write the directory wrote these: they reach exported
	 * files, the same in any locale, and terminals (through printable()).
	 */
	printable_as(m->comm, true);
	printable_as(m->hostname, true);
	printable_as(m->host_uid, true);
	printable_as(m->incomplete_reason, true);
	return 0;
}

void profmeta_strerror(char *buf, size_t len, int err)
{
	switch (err) {
	case -ENOENT:
		snprintf(buf, len, "not a msprof window (no %s or %s)",
			 PROFDIR_FACTS, PROFDIR_HOST_START);
		break;
	case -ENODATA:
		snprintf(buf, len, "no %s, and %s is not a regular file",
			 PROFDIR_FACTS, PROFDIR_HOST_START);
		break;
	case -EPROTO:
		snprintf(buf, len, "%s: not one msprof wrote (no pid)", PROFDIR_FACTS);
		break;
	case -EFBIG:
		snprintf(buf, len, "%s: too large to be msprof's", PROFDIR_FACTS);
		break;
	case -ENOMEM:
		snprintf(buf, len, "%s", strerror(-err));
		break;
	default:
		snprintf(buf, len, "%s: %s", PROFDIR_FACTS, safe_open_strerror(err));
	}
}

int profmeta_start_offset(int dirfd, const char *file, int64_t *off_ns)
{
	char *text = malloc(META_MAX);
	uint64_t begin_us, raw_ns;
	int err;

	if (!text)
		return -ENOMEM;
	err = safe_read_small_beneath(dirfd, file, text, META_MAX);
	if (!err) {
		begin_us = json_str_number(text, "collectionTimeBegin");
		raw_ns = json_str_number(text, "clockMonotonicRaw");
		err = begin_us && raw_ns ? 0 : -EPROTO;
		*off_ns = (int64_t)(begin_us * 1000 - raw_ns);
	}
	free(text);
	return err;
}

int64_t profmeta_offset_ns(const struct profmeta *m)
{
	return (int64_t)(m->start.real_ns / 1000 * 1000 - m->start.raw_ns);
}

/* raw(mono): the raw clock ran at end's rate against the monotonic one. */
uint64_t profmeta_epoch_ns(const struct profmeta *m, uint64_t mono_ns)
{
	int64_t d = (int64_t)(mono_ns - m->start.mono_ns);
	uint64_t epoch0 = m->start.real_ns / 1000 * 1000;

	if (m->rate_q48)
		d = (int64_t)(((__int128)d * m->rate_q48 + ((__int128)1 << 47)) >> 48);
	return epoch0 + (uint64_t)d;
}
