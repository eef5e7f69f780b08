// SPDX-License-Identifier: MIT
/* The ring buffer's consumer: each record into its target's host file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collector.h"
#include "msprof/mstx.h"
#include "msprof/sched.h"
#include "msprof/osrt.h"
#include "probes.h"

struct collector_sink *collector_find(struct collector *c, int tgid)
{
	int i;

	for (i = 0; i < c->nsinks; i++)
		if (c->sinks[i].tgid == tgid)
			return &c->sinks[i];
	return NULL;
}

/* A user mark, its message kept up to its length. */
static int put_mstx(struct collector_sink *s, const struct msprof_mstx_event *e)
{
	size_t n = e->msg_len < MSPROF_MSTX_MSG ? e->msg_len : MSPROF_MSTX_MSG - 1;

	s->mstx_events++;
	return recfile_append(s->file, MSPROF_REC_MSTX, e, MSPROF_MSTX_HEAD + n,
			      NULL, 0);
}

int collector_on_event(void *ctx, void *data, size_t size)
{
	const struct msprof_event_head *head = data;
	const struct msprof_api_event *api = data;
	const struct msprof_ioctl_event *io = data;
	const struct msprof_fork_event *fork = data;
	const struct msprof_pystack_event *stack = data;
	struct collector *c = ctx;
	struct collector_sink *s;
	int err;

	if (size < sizeof(*head))
		return 0;
	if (head->kind == MSPROF_EV_FORK && size >= sizeof(*fork)) {
		c->forked = (int)fork->child_tgid;
		return COLLECTOR_PAUSE;
	}
	s = collector_find(c, (int)head->tgid);
	if (!s) {
		c->unattributed++;
		return 0;
	}
	if (s->err)
		return 0;
	if (head->kind == MSPROF_EV_API && size >= sizeof(*api)) {
		err = recfile_append(s->file, MSPROF_REC_API, api, sizeof(*api), NULL, 0);
		s->api_events++;
		if (s->py)
			s->py_calls[api->stack_id < MSPROF_PYSTACK_FIRST ?
				    api->stack_id : MSPROF_PYSTACK_FIRST]++;
	} else if (head->kind == MSPROF_EV_PYSTACK && s->py) {
		err = pycodes_add_stack(s->py, s->file, stack, size);
	} else if (head->kind == MSPROF_EV_IOCTL && size >= sizeof(*io)) {
		/* With --ioctl-payload the payload follows: keep it all. */
		err = recfile_append(s->file, MSPROF_REC_IOCTL, io, size, NULL, 0);
		s->ioctl_events++;
		if (!err && s->osrt)
			err = osrt_sink_ioctl(s->osrt, io);
	} else if (head->kind == MSPROF_EV_OSRT && s->osrt) {
		err = osrt_sink_add(s->osrt, s->file, data, size);
	} else if (head->kind == MSPROF_EV_MSTX &&
		   size >= sizeof(struct msprof_mstx_event)) {
		err = put_mstx(s, data);
	} else if (head->kind == MSPROF_EV_SCHED &&
		   size >= sizeof(struct msprof_sched_event)) {
		err = recfile_append(s->file, MSPROF_REC_SCHED, data,
				     sizeof(struct msprof_sched_event), NULL, 0);
		s->sched_events++;
	} else {
		return 0;
	}
	s->err = err;
	return 0;
}

/* Names an API id and its kept arguments (see struct msprof_name_rec). */
static int write_name(struct recfile *f, uint32_t id, const struct probe *p)
{
	struct msprof_name_rec rec = { .id = id, .layer = p->layer };
	char names[512];
	size_t n, len = 0;
	int i;

	n = strlen(p->name) + 1;
	if (n > sizeof(names))
		return -ENAMETOOLONG;	/* a --uprobe function's, of any length */
	memcpy(names, p->name, n);
	len = n;
	for (i = 0; i < MSPROF_PROBE_ARGS; i++) {
		const char *arg = p->args[i].name ? p->args[i].name : "";

		rec.arg_kinds[i] = (uint8_t)p->args[i].kind;
		n = strlen(arg) + 1;
		if (len + n > sizeof(names))
			return -ENAMETOOLONG;
		memcpy(names + len, arg, n);
		len += n;
	}
	return recfile_append(f, MSPROF_REC_NAME, &rec, sizeof(rec), names, len);
}

int collector_open(struct collector *c, int tgid, int fd,
		   const struct probe_set *ps)
{
	struct collector_sink *s;
	size_t i;
	int err;

	if (c->nsinks == MSPROF_MAX_TARGETS) {
		close(fd);
		return -ENOSPC;
	}
	s = &c->sinks[c->nsinks];
	memset(s, 0, sizeof(*s));
	s->tgid = tgid;
	err = recfile_fdopen(&s->file, fd);
	if (err)
		return err;
	for (i = 0; !err && i < ps->n; i++)
		err = write_name(s->file, (uint32_t)i, &ps->v[i]);
	if (err) {
		recfile_close(s->file);
		return err;
	}
	c->nsinks++;
	return 0;
}

int collector_set_python(struct collector *c, int tgid,
			 const struct pyruntime *rt)
{
	struct collector_sink *s = collector_find(c, tgid);

	if (!s)
		return -ENOENT;
	pycodes_free(s->py);
	s->py = NULL;
	return pycodes_new(&s->py, rt);
}

int collector_set_osrt(struct collector *c, int tgid,
		       const struct osrt_sink_conf *conf)
{
	struct collector_sink *s = collector_find(c, tgid);

	if (!s)
		return -ENOENT;
	if (s->osrt)
		return 0;
	return osrt_sink_open(&s->osrt, conf);
}

void collector_flush(struct collector *c)
{
	int i;

	for (i = 0; i < c->nsinks; i++)
		if (c->sinks[i].py && !c->sinks[i].err)
			c->sinks[i].err = pycodes_flush(c->sinks[i].py,
							c->sinks[i].file);
}

void collector_sched_mark(struct collector *c, uint16_t what, uint64_t ns)
{
	struct msprof_sched_event e = { .kind = MSPROF_EV_SCHED, .what = what,
					.ts_ns = ns };
	int i;

	for (i = 0; i < c->nsinks; i++) {
		struct collector_sink *s = &c->sinks[i];

		e.tgid = (__u32)s->tgid;
		if (!s->err)
			s->err = recfile_append(s->file, MSPROF_REC_SCHED, &e,
						sizeof(e), NULL, 0);
	}
}

void collector_python_text(const struct collector_sink *s, char *buf, size_t len)
{
	static const char *const why[] = {
		[MSPROF_PYSTACK_NO_THREAD] = "on threads with no Python",
		[MSPROF_PYSTACK_NO_FRAMES] = "with no Python frame",
		[MSPROF_PYSTACK_FAULT] = "unreadable",
		[MSPROF_PYSTACK_LOST] = "lost: ring buffer full",
	};
	const uint64_t *n = s->py_calls;
	uint64_t all = 0;
	size_t at, i;
	int k = 0;

	*buf = '\0';
	if (!s->py)
		return;
	for (i = 0; i <= MSPROF_PYSTACK_FIRST; i++)
		all += n[i];
	at = (size_t)snprintf(buf, len, "Python stacks: %llu of %llu calls",
			      (unsigned long long)n[MSPROF_PYSTACK_FIRST],
			      (unsigned long long)all);
	for (i = 1; i < sizeof(why) / sizeof(why[0]) && at < len; i++)
		if (n[i])
			at += (size_t)snprintf(buf + at, len - at, "%s%llu %s",
					       k++ ? ", " : " (", (unsigned long long)n[i],
					       why[i]);
	if (k && at < len)
		snprintf(buf + at, len - at, ")");
	if (s->py->unknown && strlen(buf) + 1 < len)
		snprintf(buf + strlen(buf), len - strlen(buf),
			 "; %llu code objects gone before msprof read them",
			 (unsigned long long)s->py->unknown);
}

int collector_close(struct collector *c, int tgid, struct collector_sink *out)
{
	struct collector_sink *s = collector_find(c, tgid);
	int err = 0;

	if (!s)
		return -ENOENT;
	if (s->py && !s->err)
		s->err = pycodes_flush(s->py, s->file);
	if (s->osrt) {
		err = osrt_sink_close(s->osrt, &s->osrt_counts);
		s->osrt = NULL;
		s->err = s->err ?: err;
	}
	err = recfile_close(s->file);
	if (!err)
		err = s->err;
	collector_python_text(s, s->py_text, sizeof(s->py_text));
	*out = *s;
	out->file = NULL;
	pycodes_free(s->py);
	out->py = NULL;
	*s = c->sinks[--c->nsinks];
	return err;
}
