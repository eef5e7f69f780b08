// SPDX-License-Identifier: MIT
/*
 * The timeline, msprof_<ts>.json, as msprof writes it (spec §4): one JSON
 * array; processes numbered (pid << 10 | sort index << 5 | device), each
 * named by three metadata events; times on msprof's epoch scale, ts a
 * string of µs with 3 decimals; keys in msprof's order, since some readers
 * compare text.  Host records are written as the file is walked, never
 * held: a window of millions of calls exports in little memory.
 */
#include <errno.h>
#include <linux/ioctl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cann.h"
#include "comm.h"
#include "copy_calls.h"
#include "msprof/probe_packs.h"
#include "naming.h"
#include "outbuf.h"
#include "overlap.h"
#include "timeline.h"

/* msprof's process sort indexes (meta_data_event.h), the pid's middle. */
enum {
	SORT_CANN = 7,
	SORT_OSRT = 13,
	SORT_HARDWARE = 14,
	SORT_COMMUNICATION = 16,
	SORT_OVERLAP = 31,
};

#define HOST_DEVICE	31	/* the pid's device field for host processes */
#define NO_ID		4294967295U	/* msprof's "none": a task with no model, subtask */

/*
 * A literal's bytes, copied inline when they fit (most appends are short
 * constant keys: a call to ob_str and its strlen cost more than the copy).
 */
#define LIT(b, s) lit(b, s, sizeof(s) - 1)

static inline void lit(struct outbuf *b, const char *s, size_t n)
{
	if (b->len + n <= OUTBUF_SIZE) {
		memcpy(b->buf + b->len, s, n);
		b->len += n;
	} else {
		ob_strn(b, s, n);
	}
}

/* The ids seen (threads, streams), each once after idset_close(). */
struct idset {
	uint32_t *v;
	size_t n, cap;
};

/* Where, in text, the parts of an API's events that never change lie. */
struct span {
	size_t off, len;
};

struct api_text {
	struct span head;	/* {"name":"AscendCL@x","pid":N,"tid": */
	struct span mid;	/* ,"Mode":..,"connection_id": */
	struct span key[MSPROF_PROBE_ARGS];	/* ,"count": ; len 0: not kept */
};

struct tl {
	struct outbuf ob;
	const struct profdata *p;
	uint64_t pid;		/* info.json's */
	bool first;
	char *text;		/* the api_text spans' bytes */
	size_t text_len;
	struct api_text api[MSPROF_MAX_APIS];
	struct idset io_tids;	/* threads with ioctls */
	struct idset cann_tids;	/* threads with runtime-reported calls */
	/*
	 * By our call (connection id - 1): the runtime's record of the same
	 * call, as its place among the API records (0: none); allocated at
	 * the first such call.
	 */
	uint32_t *cann_of;
	struct copy_calls copies;
	struct comm_ops comm;	/* the collectives */
};

/* Sorts the set and drops repeats: it then holds each id once, ascending. */
static void idset_close(struct idset *s)
{
	s->n = profdata_sort_unique(s->v, s->n);
}

/*
 * Ids are appended and the set compacted when full, so that many ids (a
 * device file may name a million streams) cost n log n, not n squared,
 * and the memory stays within twice the distinct ids.
 */
static int idset_add(struct idset *s, uint32_t id)
{
	if (s->n && s->v[s->n - 1] == id)
		return 0;
	if (s->n == s->cap)
		idset_close(s);
	if (s->n == s->cap || s->n > s->cap / 2) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		uint32_t *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = id;
	return 0;
}

static uint64_t track_pid(const struct tl *t, unsigned int sort, uint32_t dev)
{
	/* Five bits of device: msprof's layout, 31 being the host. */
	return t->pid << 10 | (uint64_t)sort << 5 | (dev & 31);
}

/*
 * info.json's pid: the task as it sees itself (helper L writes that view
 * there), else, for windows read without it, the pid msprof saw.
 */
static uint64_t info_pid(const struct profdata *p)
{
	return (uint64_t)(p->meta.ns_pid > 0 ? p->meta.ns_pid :
			  p->meta.pid > 0 ? p->meta.pid : 0);
}

/* Opens the next event of the array, up to its name's value. */
static void start(struct tl *t)
{
	if (t->first)
		LIT(&t->ob, "\n{\"name\":");
	else
		LIT(&t->ob, ",\n{\"name\":");
	t->first = false;
}

static void pid_tid(struct tl *t, uint64_t pid, uint64_t tid)
{
	LIT(&t->ob, ",\"pid\":");
	ob_u64(&t->ob, pid);
	LIT(&t->ob, ",\"tid\":");
	ob_u64(&t->ob, tid);
}

/* {"name":<name>,"pid":P,"tid":T  — every event starts so. */
static void head(struct tl *t, const char *name, uint64_t pid, uint64_t tid)
{
	start(t);
	ob_json_str(&t->ob, name);
	pid_tid(t, pid, tid);
}

static void ts_at(struct tl *t, uint64_t epoch_ns)
{
	LIT(&t->ob, ",\"ts\":\"");
	ob_us3(&t->ob, epoch_ns);
	ob_char(&t->ob, '"');
}

static void ts(struct tl *t, uint64_t mono_ns)
{
	ts_at(t, profmeta_epoch_ns(&t->p->meta, mono_ns));
}

/*
 * ,"ts":"..","dur":..,"ph":"X","args":{ — dur on the same scale as ts, so
 * that ts + dur is where the slice ends and slices that tile a span (the
 * Overlap Analysis) add up to it exactly.
 */
static void span_args(struct tl *t, uint64_t start_ns, uint64_t end_ns)
{
	uint64_t start = profmeta_epoch_ns(&t->p->meta, start_ns);
	uint64_t end = profmeta_epoch_ns(&t->p->meta, end_ns);

	ts_at(t, start);
	LIT(&t->ob, ",\"dur\":");
	ob_us3(&t->ob, end > start ? end - start : 0);
	LIT(&t->ob, ",\"ph\":\"X\",\"args\":{");
}

static void meta_str(struct tl *t, const char *what, uint64_t pid,
		     uint64_t tid, const char *key, const char *val)
{
	head(t, what, pid, tid);
	LIT(&t->ob, ",\"ph\":\"M\",\"args\":{\"");
	ob_str(&t->ob, key);
	LIT(&t->ob, "\":");
	ob_json_str(&t->ob, val);
	LIT(&t->ob, "}}");
}

static void meta_sort(struct tl *t, const char *what, uint64_t pid,
		      uint64_t tid, uint64_t sort)
{
	head(t, what, pid, tid);
	LIT(&t->ob, ",\"ph\":\"M\",\"args\":{\"sort_index\":");
	ob_u64(&t->ob, sort);
	LIT(&t->ob, "}}");
}

static void process(struct tl *t, const char *name, const char *label,
		    unsigned int sort, uint32_t dev)
{
	uint64_t pid = track_pid(t, sort, dev);

	meta_str(t, "process_name", pid, 0, "name", name);
	meta_str(t, "process_labels", pid, 0, "labels", label);
	meta_sort(t, "process_sort_index", pid, 0, sort);
}

static void thread(struct tl *t, uint64_t pid, uint32_t tid, const char *name,
		   uint64_t sort)
{
	meta_str(t, "thread_name", pid, tid, "name", name);
	meta_sort(t, "thread_sort_index", pid, tid, sort);
}

static void numbered_thread(struct tl *t, uint64_t pid, const char *what,
			    uint32_t tid)
{
	char name[32];

	snprintf(name, sizeof(name), "%s %u", what, tid);
	thread(t, pid, tid, name, tid);
}

/* msprof's Mode of an AscendCL call, from its family; other layers' level. */
static const char *api_mode(const struct api_desc *d)
{
	if (d->layer == MSPROF_LAYER_HCCL)
		return "HOST_HCCL";	/* the acl group CANN reports them in */
	if (d->layer != MSPROF_LAYER_ACL)
		return naming_layer(d->layer)->level;
	if (!strncmp(d->name, "aclrt", 5))
		return "ACL_RTS";
	if (!strncmp(d->name, "aclop", 5))
		return "ACL_OP";
	if (!strncmp(d->name, "aclmdl", 6))
		return "ACL_MODEL";
	return "ACL_OTHERS";
}

/* What was rendered since *pos: flushed to the memory stream, measured. */
static struct span mark_span(struct outbuf *b, FILE *fp, size_t *pos)
{
	struct span s = { *pos, 0 };
	long at;

	ob_flush(b);
	fflush(fp);
	at = ftell(fp);
	if (at > (long)*pos)
		s.len = (size_t)at - *pos;
	*pos += s.len;
	return s;
}

/* The text of one API's events that is the same for each of its calls. */
static void api_text(struct tl *t, struct outbuf *b, FILE *fp, size_t *pos,
		     uint32_t id, const struct api_desc *d)
{
	const struct layer_naming *ln = naming_layer(d->layer);
	struct api_text *a = &t->api[id];
	char name[MSPROF_REC_NAMES_MAX + 32];	/* prefix + a whole name */
	int i;

	snprintf(name, sizeof(name), "%s%s", ln->prefix, d->name);
	ob_json_str(b, name);
	LIT(b, ",\"pid\":");
	ob_u64(b, track_pid(t, SORT_CANN, HOST_DEVICE));
	LIT(b, ",\"tid\":");
	a->head = mark_span(b, fp, pos);
	LIT(b, ",\"Mode\":");
	ob_json_str(b, api_mode(d));
	LIT(b, ",\"level\":");
	ob_json_str(b, ln->level);
	LIT(b, ",\"id\":");
	ob_json_str(b, d->name);
	LIT(b, ",\"item_id\":\"0\",\"connection_id\":");
	a->mid = mark_span(b, fp, pos);
	for (i = 0; i < MSPROF_PROBE_ARGS; i++) {
		if (d->args[i] && *d->args[i]) {
			ob_char(b, ',');
			ob_json_str(b, d->args[i]);
			ob_char(b, ':');
		}
		a->key[i] = mark_span(b, fp, pos);
	}
}

/* Renders every named API's constant text once, into t->text. */
static int api_texts(struct tl *t)
{
	struct outbuf *b = malloc(sizeof(*b));
	FILE *fp = open_memstream(&t->text, &t->text_len);
	size_t pos = 0;
	uint32_t id;
	int err = 0;

	if (!b || !fp) {
		free(b);
		if (fp)
			fclose(fp);
		return -ENOMEM;
	}
	ob_init(b, fp);
	for (id = 0; id < MSPROF_MAX_APIS; id++) {
		const struct api_desc *d = profdata_desc(t->p, id);

		if (d)
			api_text(t, b, fp, &pos, id, d);
	}
	ob_flush(b);
	if (ferror(fp))
		err = -ENOMEM;
	if (fclose(fp))
		err = -ENOMEM;
	free(b);
	return err;
}

static void put_span(struct tl *t, struct span s)
{
	ob_strn(&t->ob, t->text + s.off, s.len);
}

static void api_arg(struct tl *t, const struct api_desc *d, uint64_t v, int i)
{
	switch (d->kinds[i]) {
	case MSPROF_ARG_UINT:
		ob_u64(&t->ob, v);
		break;
	case MSPROF_ARG_INT:
		ob_i64(&t->ob, (int32_t)v);
		break;
	default:
		LIT(&t->ob, "\"0x");
		ob_hex(&t->ob, v);
		ob_char(&t->ob, '"');
		break;
	}
}

static int write_api(const struct msprof_api_event *e, uint64_t conn, void *ctx)
{
	struct tl *t = ctx;
	const struct api_desc *d = profdata_desc(t->p, e->api_id);
	const struct api_text *a;
	size_t n;
	int i;

	if (!d) {
		/* A record no name record described: shown, as what it is. */
		head(t, "Api@unknown_api", track_pid(t, SORT_CANN, HOST_DEVICE),
		     e->ns_tid);
		span_args(t, e->start_ns, e->end_ns);
		LIT(&t->ob, "\"Thread Id\":");
		ob_u64(&t->ob, e->ns_tid);
		LIT(&t->ob, ",\"api_id\":");
		ob_u64(&t->ob, e->api_id);
		LIT(&t->ob, ",\"connection_id\":");
		ob_u64(&t->ob, conn);
		LIT(&t->ob, "}}");
		return 0;
	}
	a = &t->api[e->api_id];
	start(t);
	put_span(t, a->head);
	ob_u64(&t->ob, e->ns_tid);
	span_args(t, e->start_ns, e->end_ns);
	LIT(&t->ob, "\"Thread Id\":");
	ob_u64(&t->ob, e->ns_tid);
	put_span(t, a->mid);
	ob_u64(&t->ob, conn);
	LIT(&t->ob, ",\"return\":");
	ob_i64(&t->ob, e->ret);
	LIT(&t->ob, ",\"depth\":");
	ob_u64(&t->ob, e->depth);
	if (t->cann_of && conn && conn <= t->p->ncalls && t->cann_of[conn - 1]) {
		LIT(&t->ob, ",\"cann_connection_id\":");
		ob_u64(&t->ob, t->p->ncalls + t->cann_of[conn - 1]);
	}
	for (i = 0; i < MSPROF_PROBE_ARGS; i++) {
		if (!a->key[i].len)
			continue;
		put_span(t, a->key[i]);
		api_arg(t, d, e->args[i], i);
	}
	LIT(&t->ob, "}}");
	if (t->copies.n)
		copy_calls_note(&t->copies, d, e, conn, &n);
	return 0;
}

static void hex_bytes(struct outbuf *b, const uint8_t *v, size_t n)
{
	static const char digit[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		ob_char(b, digit[v[i] >> 4]);
		ob_char(b, digit[v[i] & 15]);
	}
}

static int write_ioctl(const struct msprof_ioctl_payload_event *pe, void *ctx)
{
	const struct msprof_ioctl_event *e = &pe->io;
	struct tl *t = ctx;
	struct outbuf *b = &t->ob;

	head(t, "ioctl", track_pid(t, SORT_OSRT, HOST_DEVICE), e->tid);
	span_args(t, e->start_ns, e->end_ns);
	LIT(b, "\"fd\":");
	ob_u64(b, e->fd);
	LIT(b, ",\"cmd\":\"0x");
	ob_hex(b, e->cmd);
	LIT(b, "\",\"dir\":");
	ob_u64(b, _IOC_DIR(e->cmd));
	LIT(b, ",\"type\":");
	ob_u64(b, _IOC_TYPE(e->cmd));
	LIT(b, ",\"nr\":");
	ob_u64(b, _IOC_NR(e->cmd));
	LIT(b, ",\"size\":");
	ob_u64(b, _IOC_SIZE(e->cmd));
	LIT(b, ",\"dev\":\"");
	ob_u64(b, e->dev >> 20);
	ob_char(b, ':');
	ob_u64(b, e->dev & 0xfffff);
	LIT(b, "\",\"return\":");
	ob_i64(b, e->ret);
	if (pe->payload_len) {
		LIT(b, ",\"payload\":\"");
		hex_bytes(b, pe->payload, pe->payload_len < MSPROF_IOCTL_PAYLOAD ?
			  pe->payload_len : MSPROF_IOCTL_PAYLOAD);
		ob_char(b, '"');
	}
	LIT(b, "}}");
	return idset_add(&t->io_tids, e->tid);
}

/* msprof's prefix of a runtime-reported call's slice (§7). */
static const char *cann_prefix(uint16_t level)
{
	switch (level) {
	case CANN_LEVEL_ACL: return "AscendCL@";
	case CANN_LEVEL_MODEL: return "Model@";
	case CANN_LEVEL_NODE: return "Node@";
	case CANN_LEVEL_HCCL: return "Communication@";
	case CANN_LEVEL_RUNTIME: return "Runtime@";
	}
	return "Api@";
}

/* The acl group's name, msprof's Mode (AclApiTag). */
static const char *acl_mode(uint32_t type)
{
	static const char *const modes[] = {
		[1] = "ACL_OP", [2] = "ACL_MODEL", [3] = "ACL_RTS", [4] = "ACL_OTHERS",
		[5] = "ACL_NN", [6] = "ACL_ASCENDC", [7] = "HOST_HCCL", [9] = "ACL_DVPP",
		[10] = "ACL_GRAPH", [11] = "ACL_ATB",
	};
	uint32_t g = type >> 16;

	return g < sizeof(modes) / sizeof(modes[0]) && modes[g] ? modes[g] : "N/A";
}

/* Our call stands for the runtime's: it is to carry the runtime's id. */
static int note_seen(struct tl *t, const struct cann_call *c)
{
	uint64_t seq = c->conn - t->p->ncalls;

	if (seq > UINT32_MAX || c->ours > t->p->ncalls)
		return 0;
	if (!t->cann_of) {
		t->cann_of = calloc(t->p->ncalls, sizeof(*t->cann_of));
		if (!t->cann_of)
			return -ENOMEM;
	}
	t->cann_of[c->ours - 1] = (uint32_t)seq;
	return 0;
}

/*
 * A call the runtime reported and eBPF did not record (a level eBPF cannot
 * see, or a window of Huawei's msprof alone), drawn as msprof draws it:
 * Communication@ by its task name, the others by their type's name, the
 * op's name in item_id.
 */
static int write_cann_call(const struct cann_call *c, void *ctx)
{
	struct tl *t = ctx;
	char name[MSPROF_REC_NAMES_MAX + 32], num[CANN_NUM_LEN];
	const char *what;

	if (c->seen)
		return note_seen(t, c);
	what = cann_call_name(c, num);
	snprintf(name, sizeof(name), "%s%s", cann_prefix(c->level), what);
	head(t, name, track_pid(t, SORT_CANN, HOST_DEVICE), c->tid);
	span_args(t, c->begin_ns, c->end_ns);
	LIT(&t->ob, "\"Thread Id\":");
	ob_u64(&t->ob, c->tid);
	LIT(&t->ob, ",\"Mode\":");
	ob_json_str(&t->ob, c->level == CANN_LEVEL_ACL ? acl_mode(c->type) :
		    c->type_name ? c->type_name : num);
	LIT(&t->ob, ",\"level\":");
	ob_json_str(&t->ob, cann_level_name(c->level));
	LIT(&t->ob, ",\"id\":");
	ob_json_str(&t->ob, c->level == CANN_LEVEL_ACL && c->type_name ?
		    c->type_name : "0");
	LIT(&t->ob, ",\"item_id\":");
	if (c->item) {
		ob_json_str(&t->ob, c->item);
	} else {
		ob_char(&t->ob, '"');
		ob_u64(&t->ob, c->item_id);
		ob_char(&t->ob, '"');
	}
	LIT(&t->ob, ",\"connection_id\":");
	ob_u64(&t->ob, c->conn);
	LIT(&t->ob, "}}");
	return idset_add(&t->cann_tids, c->tid);
}

/* The CANN process and its threads: those of the index of calls. */
static void write_cann_names(struct tl *t)
{
	uint64_t pid = track_pid(t, SORT_CANN, HOST_DEVICE);
	const struct profdata *p = t->p;
	size_t i;

	process(t, "CANN", "CPU", SORT_CANN, HOST_DEVICE);
	for (i = 0; i < p->ncalls; i++)	/* by ns_tid */
		if (!i || p->calls[i].ns_tid != p->calls[i - 1].ns_tid)
			numbered_thread(t, pid, "Thread", p->calls[i].ns_tid);
}

/* Threads only the runtime's calls were seen on. */
static void write_cann_tids(struct tl *t)
{
	uint64_t pid = track_pid(t, SORT_CANN, HOST_DEVICE);
	const struct profdata *p = t->p;
	size_t i, lo, hi;

	idset_close(&t->cann_tids);
	for (i = 0; i < t->cann_tids.n; i++) {
		uint32_t tid = t->cann_tids.v[i];

		for (lo = 0, hi = p->ncalls; lo < hi;) {	/* already named? */
			size_t mid = lo + (hi - lo) / 2;

			if (p->calls[mid].ns_tid < tid)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == p->ncalls || p->calls[lo].ns_tid != tid)
			numbered_thread(t, pid, "Thread", tid);
	}
}

static void write_osrt_names(struct tl *t)
{
	uint64_t pid = track_pid(t, SORT_OSRT, HOST_DEVICE);
	size_t i;

	idset_close(&t->io_tids);
	if (!t->io_tids.n)
		return;
	process(t, "OS Runtime API", "CPU", SORT_OSRT, HOST_DEVICE);
	for (i = 0; i < t->io_tids.n; i++)
		numbered_thread(t, pid, "Thread", t->io_tids.v[i]);
}

/*
 * msprof's Communication threads: per group a thread of its ops, "Group
 * <name> Communication", and below it one of their tasks, "Plane 0" (a
 * simulated collective is one task, on one plane); ops whose call went
 * unseen on "Communication" after the groups.
 */
static uint32_t comm_slot(const struct tl *t, uint32_t group)
{
	return group == COMM_UNKNOWN ? (uint32_t)t->comm.ngroups : group;
}

static uint32_t comm_tid(const struct tl *t, uint32_t group)
{
	return 2 * comm_slot(t, group);
}

/* A runtime's plane (hccl_info's planeID): after every group's threads. */
static uint32_t plane_tid(const struct tl *t, uint32_t plane)
{
	return 2 * ((uint32_t)t->comm.ngroups + 1) + plane;
}

/* The "Plane <id>" threads of the device's raw ops' tasks. */
static int write_planes(struct tl *t, uint32_t dev, uint64_t pid)
{
	const struct comm_ops *c = &t->comm;
	struct idset planes = { 0 };
	size_t i, k;
	int err = 0;

	for (i = 0; i < c->n && !err; i++) {
		const struct comm_op *op = &c->v[i];

		if (!op->raw || t->p->tasks[op->task].device != dev)
			continue;
		for (k = 0; k < op->ntasks && !err; k++)
			err = idset_add(&planes, profdata_hccl(t->p,
				&t->p->tasks[c->tasks[op->first + k]])->plane);
	}
	idset_close(&planes);
	for (i = 0; i < planes.n && !err; i++) {
		char name[32];

		snprintf(name, sizeof(name), "Plane %u", planes.v[i]);
		thread(t, pid, plane_tid(t, planes.v[i]), name, plane_tid(t, planes.v[i]));
	}
	free(planes.v);
	return err;
}

static int write_comm_names(struct tl *t, uint32_t dev, const char *label)
{
	uint64_t pid = track_pid(t, SORT_COMMUNICATION, dev);
	char name[300], group[256];
	uint32_t g, tid;
	bool any = false, *seen;
	size_t i;

	if (!t->comm.n)
		return 0;
	seen = calloc(t->comm.ngroups + 1, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	for (i = 0; i < t->comm.n; i++) {
		const struct comm_op *op = &t->comm.v[i];

		if (t->p->tasks[op->task].device != dev)
			continue;
		g = comm_slot(t, op->group);
		if (!any)
			process(t, "Communication", label, SORT_COMMUNICATION, dev);
		any = true;
		if (seen[g])
			continue;
		seen[g] = true;
		tid = comm_tid(t, op->group);
		comm_group_name(group, sizeof(group), t->p, op);
		if (op->group == COMM_UNKNOWN)
			snprintf(name, sizeof(name), "Communication");
		else
			snprintf(name, sizeof(name), "Group %s Communication", group);
		thread(t, pid, tid, name, tid);
		if (!op->raw)
			thread(t, pid, tid + 1, "Plane 0", tid + 1);
	}
	free(seen);
	return any ? write_planes(t, dev, pid) : 0;
}

/* One device's processes: its hardware, by stream, and its overlap. */
static int write_device_names(struct tl *t, size_t from, size_t to)
{
	const struct profdata *p = t->p;
	uint32_t dev = p->tasks[from].device;
	uint64_t pid = track_pid(t, SORT_HARDWARE, dev);
	struct idset streams = { 0 };
	char label[32];
	size_t i;
	int k;

	snprintf(label, sizeof(label), "NPU %u", dev);
	process(t, "Ascend Hardware", label, SORT_HARDWARE, dev);
	for (i = from; i < to; i++)
		if (idset_add(&streams, p->tasks[i].stream)) {
			free(streams.v);
			return -ENOMEM;
		}
	idset_close(&streams);
	for (i = 0; i < streams.n; i++)
		numbered_thread(t, pid, "Stream", streams.v[i]);
	free(streams.v);
	if (write_comm_names(t, dev, label))
		return -ENOMEM;
	process(t, "Overlap Analysis", label, SORT_OVERLAP, dev);
	pid = track_pid(t, SORT_OVERLAP, dev);
	for (k = OVERLAP_COMPUTE; k <= OVERLAP_FREE; k++)
		thread(t, pid, (uint32_t)k, overlap_name((enum overlap_kind)k),
		       (uint64_t)k);
	return 0;
}

static int write_devices_names(struct tl *t)
{
	const struct profdata *p = t->p;
	size_t from, to;
	int err;

	for (from = 0; from < p->ntasks; from = to) {
		for (to = from + 1; to < p->ntasks &&
		     p->tasks[to].device == p->tasks[from].device; to++)
			;
		err = write_device_names(t, from, to);
		if (err)
			return err;
	}
	return 0;
}

/* msprof's names of a copy's direction (MEMCPY_OPERATIONS), by kind. */
static const char *copy_operation(uint32_t kind)
{
	static const char *const ops[] = {
		"host to host", "host to device", "device to host",
		"device to device",
	};

	return kind < sizeof(ops) / sizeof(ops[0]) ? ops[kind] : "other";
}

static void copy_args(struct tl *t, const struct devtask *d)
{
	const struct task_copy *tc = profdata_copy(t->p, d);
	const struct copy_call *c = copy_calls_find(&t->copies, d->conn);
	uint64_t dur = d->end_ns > d->start_ns ? d->end_ns - d->start_ns : 0;
	uint64_t bytes;
	uint32_t kind;

	if (tc) {	/* memcpy_info's word before the call's arguments */
		bytes = tc->bytes;
		kind = tc->kind;
	} else if (c && c->has_bytes && c->has_kind) {
		bytes = c->bytes;
		kind = (uint32_t)c->kind;
	} else {
		return;
	}
	LIT(&t->ob, ",\"size(B)\":");
	ob_u64(&t->ob, bytes);
	/* B/ns is GB/s; ob_us3 writes thousandths with 3 decimals. */
	LIT(&t->ob, ",\"bandwidth(GB/s)\":");
	ob_us3(&t->ob, dur ? bytes * 1000 / dur : 0);
	LIT(&t->ob, ",\"operation\":");
	ob_json_str(&t->ob, copy_operation(kind));
}

/* One end of a flow: "HostToDevice<id>", id conn << 32 as msprof's. */
static void flow_id(struct tl *t, unsigned __int128 id, uint64_t pid,
		    uint32_t tid, bool finish, uint64_t at_ns)
{
	char digits[48];
	size_t n = sizeof(digits);

	digits[--n] = '\0';
	do {
		digits[--n] = (char)('0' + (int)(id % 10));
		id /= 10;
	} while (id);
	start(t);
	LIT(&t->ob, "\"HostToDevice");
	ob_str(&t->ob, digits + n);
	ob_char(&t->ob, '"');
	pid_tid(t, pid, tid);
	if (finish)
		LIT(&t->ob, ",\"ph\":\"f\",\"cat\":\"HostToDevice\",\"id\":\"");
	else
		LIT(&t->ob, ",\"ph\":\"s\",\"cat\":\"HostToDevice\",\"id\":\"");
	ob_str(&t->ob, digits + n);
	ob_char(&t->ob, '"');
	ts(t, at_ns);
	if (finish)
		LIT(&t->ob, ",\"bp\":\"e\"}");
	else
		ob_char(&t->ob, '}');
}

/*
 * A flow from the CANN process's thread from_tid at from_ns to (pid, tid)
 * at to_ns: a launch's, from its call to what it launched.
 */
static void flow(struct tl *t, unsigned __int128 id, uint32_t from_tid,
		 uint64_t from_ns, uint64_t pid, uint32_t tid, uint64_t to_ns)
{
	flow_id(t, id, track_pid(t, SORT_CANN, HOST_DEVICE), from_tid, false,
		from_ns);
	flow_id(t, id, pid, tid, true, to_ns);
}

/* The id of a flow from our call conn: conn << 32, as msprof's. */
static unsigned __int128 conn_flow(uint64_t conn)
{
	return (unsigned __int128)conn << 32;
}

/*
 * A runtime's task no eBPF call launched: its flow from its task_track on
 * the submitting thread, with msprof's id of a kernel's (§4.3).
 */
static void task_track_flow(struct tl *t, const struct devtask *d, uint64_t pid)
{
	unsigned __int128 id = (unsigned __int128)d->device << 80 |
			       (unsigned __int128)d->stream << 64 |
			       (unsigned __int128)d->task_id << 48 |
			       (unsigned __int128)d->batch << 32 | NO_ID;

	flow(t, id, d->host_tid, d->submit_ns, pid, d->stream, d->start_ns);
}

/* A device task slice and, when its launch is known, the flow from it. */
static void write_task(struct tl *t, const struct devtask *d)
{
	const struct profdata *p = t->p;
	const struct profcall *c = profdata_call(p, d->conn);
	uint64_t pid = track_pid(t, SORT_HARDWARE, d->device);

	head(t, naming_devtask_name(p, d), pid, d->stream);
	span_args(t, d->start_ns, d->end_ns);
	LIT(&t->ob, "\"Model Id\":");
	ob_u64(&t->ob, NO_ID);
	LIT(&t->ob, ",\"Task Type\":");
	ob_json_str(&t->ob, naming_devtask_type(p, d));
	LIT(&t->ob, ",\"Physic Stream Id\":");
	ob_u64(&t->ob, d->stream);
	LIT(&t->ob, ",\"Task Id\":");
	ob_u64(&t->ob, d->task_id);
	LIT(&t->ob, ",\"Batch Id\":");
	ob_u64(&t->ob, d->batch);
	LIT(&t->ob, ",\"Subtask Id\":");
	ob_u64(&t->ob, NO_ID);
	LIT(&t->ob, ",\"connection_id\":");
	ob_u64(&t->ob, d->conn);
	copy_args(t, d);
	LIT(&t->ob, ",\"block_dim\":");
	ob_u64(&t->ob, profdata_task_op(p, d)->block_dim);
	LIT(&t->ob, ",\"host_tid\":");
	ob_u64(&t->ob, d->host_tid);
	LIT(&t->ob, "}}");
	/* A collective's flow ends at its op, on the Communication process. */
	if (overlap_is_comm(p, d))
		return;
	if (!c) {
		if (d->submit_ns && profdata_task_op(p, d)->sqe != DEVOP_NO_SQE)
			task_track_flow(t, d, pid);
		return;
	}
	flow(t, conn_flow(d->conn), c->ns_tid, c->start_ns, pid, d->stream,
	     d->start_ns);
}

static const char *hccl_name(uint32_t v, const char *const *names, size_t n)
{
	return v < n && names[v] ? names[v] : "N/A";
}

#define HCCL_NAME(v, names) hccl_name(v, names, sizeof(names) / sizeof(names[0]))

/*
 * A collective's op on its group's thread, up to its count: what a
 * runtime's and one of ours say alike.
 */
static void comm_op_head(struct tl *t, const struct comm_op *op, uint64_t pid,
			 uint64_t end_ns, uint64_t rank_size,
			 const char *data_type)
{
	char name[MSPROF_REC_NAMES_MAX + 64];

	comm_op_name(name, sizeof(name), t->p, op);
	head(t, name, pid, comm_tid(t, op->group));
	span_args(t, op->start_ns, end_ns);
	LIT(&t->ob, "\"rank_size\":");
	ob_u64(&t->ob, rank_size);
	LIT(&t->ob, ",\"connection_id\":");
	ob_u64(&t->ob, op->conn);
	LIT(&t->ob, ",\"model id\":");
	ob_u64(&t->ob, NO_ID);
	LIT(&t->ob, ",\"data_type\":");
	ob_json_str(&t->ob, data_type);
	LIT(&t->ob, ",\"alg_type\":\"N/A\",\"count\":");
}

/* What a collective's task on its plane says: hccl_info's, or ours. */
struct plane_args {
	const char *name;	/* the slice's, and its task type */
	const char *notify_id;
	uint64_t duration_est;	/* µs */
	int64_t src_rank;
	uint64_t dst_rank;
	const char *transport, *data_type, *link;
	uint64_t bytes;
};

static void plane_task(struct tl *t, const struct devtask *d, uint64_t pid,
		       uint32_t tid, const struct plane_args *a)
{
	uint64_t dur = d->end_ns > d->start_ns ? d->end_ns - d->start_ns : 0;

	head(t, a->name, pid, tid);
	span_args(t, d->start_ns, d->end_ns);
	LIT(&t->ob, "\"notify_id\":\"");
	ob_str(&t->ob, a->notify_id);
	LIT(&t->ob, "\",\"duration estimated(us)\":");
	ob_u64(&t->ob, a->duration_est);
	LIT(&t->ob, ",\"stream id\":");
	ob_u64(&t->ob, d->stream);
	LIT(&t->ob, ",\"task id\":");
	ob_u64(&t->ob, d->task_id);
	LIT(&t->ob, ",\"context id\":");
	ob_u64(&t->ob, NO_ID);
	LIT(&t->ob, ",\"task type\":");
	ob_json_str(&t->ob, a->name);
	LIT(&t->ob, ",\"src rank\":");
	ob_i64(&t->ob, a->src_rank);
	LIT(&t->ob, ",\"dst rank\":");
	ob_u64(&t->ob, a->dst_rank);
	LIT(&t->ob, ",\"transport type\":");
	ob_json_str(&t->ob, a->transport);
	LIT(&t->ob, ",\"size(Byte)\":");
	ob_u64(&t->ob, a->bytes);
	LIT(&t->ob, ",\"data type\":");
	ob_json_str(&t->ob, a->data_type);
	LIT(&t->ob, ",\"link type\":");
	ob_json_str(&t->ob, a->link);
	/* B/ns is GB/s; ob_us3 writes thousandths with 3 decimals. */
	LIT(&t->ob, ",\"bandwidth(GB/s)\":");
	ob_us3(&t->ob, dur ? a->bytes * 1000 / dur : 0);
	LIT(&t->ob, ",\"model id\":");
	ob_u64(&t->ob, NO_ID);
	LIT(&t->ob, "}}");
}

/* A runtime's collective's task on its plane, with hccl_info's args (§4.4). */
static void write_raw_task(struct tl *t, const struct devtask *d, uint64_t pid)
{
	/* hccl_info's codes, named as Huawei's analysis names them. */
	static const char *const transports[] = { "SDMA", "RDMA", "LOCAL", "UB", "ROCE" };
	static const char *const links[] = {
		"ON_CHIP", "HCCS", "PCIE", "ROCE", "SIO", "HCCS_SW", "STANDARD_ROCE",
		"UB", "UBoE",
	};
	const struct task_hccl *x = profdata_hccl(t->p, d);
	char notify[24];

	snprintf(notify, sizeof(notify), "%llu", (unsigned long long)x->notify_id);
	plane_task(t, d, pid, plane_tid(t, x->plane), &(struct plane_args){
		.name = strtab_str(&t->p->names, x->name), .notify_id = notify,
		.duration_est = (uint64_t)(x->duration_est > 0 &&
					   x->duration_est < 1e15 ?
					   x->duration_est : 0),
		.src_rank = x->local_rank, .dst_rank = x->remote_rank,
		.transport = HCCL_NAME(x->transport_type, transports),
		.data_type = comm_data_type_name(x->data_type),
		.link = HCCL_NAME(x->link_type, links), .bytes = x->bytes,
	});
}

/*
 * A runtime's collective: its op on its group's thread, its tasks on their
 * planes, and from its node launch a flow to the op and one to each task
 * on Ascend Hardware, as Huawei's analysis draws them: the op's id is the
 * connection id << 32 less 1 (an op has no context id), a task's the
 * connection id << 32 plus its context id (none: 4294967295).
 */
static void write_raw_op(struct tl *t, const struct comm_op *op)
{
	const struct profdata *p = t->p;
	uint64_t pid = track_pid(t, SORT_COMMUNICATION, p->tasks[op->task].device);
	size_t k;

	comm_op_head(t, op, pid, op->end_ns, op->rank_size, "N/A");
	LIT(&t->ob, "-1}}");
	if (op->call_ns)
		flow(t, conn_flow(op->conn) - 1, op->call_tid, op->call_ns, pid,
		     comm_tid(t, op->group), op->start_ns);
	for (k = 0; k < op->ntasks; k++) {
		const struct devtask *d = &p->tasks[t->comm.tasks[op->first + k]];

		write_raw_task(t, d, pid);
		/* msprof's flow to a collective's task: its copies' only. */
		if (op->call_ns && devop_is_copy(profdata_task_op(p, d)))
			flow(t, conn_flow(op->conn) | NO_ID, op->call_tid,
			     op->call_ns, track_pid(t, SORT_HARDWARE, d->device),
			     d->stream, d->start_ns);
	}
}

/*
 * A collective: its op on its group's thread, with msprof's args, the flow
 * from its Hccl* call to it, and its task on the plane below.
 */
static void write_comm_op(struct tl *t, const struct comm_op *op)
{
	const struct profdata *p = t->p;
	const struct devtask *d = &p->tasks[op->task];
	const struct profcall *c = profdata_call(p, op->conn);
	uint64_t pid = track_pid(t, SORT_COMMUNICATION, d->device);
	uint32_t tid = comm_tid(t, op->group);

	comm_op_head(t, op, pid, d->end_ns, 0, comm_data_type_name(op->data_type));
	ob_u64(&t->ob, op->count);
	LIT(&t->ob, ",\"relay\":\"no\",\"retry\":\"no\"}}");
	if (c)
		flow(t, conn_flow(op->conn), c->ns_tid, c->start_ns, pid, tid,
		     d->start_ns);
	plane_task(t, d, pid, tid + 1, &(struct plane_args){
		.name = naming_devtask_name(p, d), .notify_id = "N/A",
		.src_rank = p->meta.rank_id, .dst_rank = NO_ID,
		.transport = "LOCAL", .data_type = comm_data_type_name(op->data_type),
		.link = "N/A", .bytes = comm_op_bytes(op),
	});
}

static int write_overlap(uint32_t dev, enum overlap_kind kind,
			 uint64_t start_ns, uint64_t end_ns, void *ctx)
{
	struct tl *t = ctx;

	head(t, overlap_name(kind), track_pid(t, SORT_OVERLAP, dev), kind);
	span_args(t, start_ns, end_ns);
	LIT(&t->ob, "}}");
	return 0;
}

/*
 * A marker of lost data: an instant event on the CANN process's thread 0,
 * at the window's end, with what it says in args.  Readers that take
 * slices (ph X) pass over it; viewers show it across the timeline.
 */
static void mark(struct tl *t, const char *what)
{
	head(t, what, track_pid(t, SORT_CANN, HOST_DEVICE), 0);
	ts(t, t->p->end_mono_ns);
	LIT(&t->ob, ",\"ph\":\"i\",\"s\":\"g\",\"args\":{");
}

/* Lost data is never silent: a marker for each kind of loss. */
static bool write_losses(struct tl *t)
{
	const struct profdata *p = t->p;
	char what[512], why[256];
	bool any = false;
	unsigned int i;

	if (p->meta.lost_events) {
		snprintf(what, sizeof(what), "msprof: %llu host events lost (ring buffer full)",
			 p->meta.lost_events);
		mark(t, what);
		LIT(&t->ob, "\"lost_events\":");
		ob_u64(&t->ob, p->meta.lost_events);
		LIT(&t->ob, "}}");
		any = true;
	}
	for (i = 0; i < p->nproblems && i < PROFDATA_MAX_PROBLEMS; i++) {
		const struct profdata_problem *pb = &p->problems[i];

		profdata_problem_str(why, sizeof(why), pb);
		snprintf(what, sizeof(what), "msprof: %s: %s", pb->file, why);
		mark(t, what);
		LIT(&t->ob, "\"file\":");
		ob_json_str(&t->ob, pb->file);
		LIT(&t->ob, ",\"problem\":");
		ob_json_str(&t->ob, why);
		LIT(&t->ob, "}}");
		any = true;
	}
	if (p->nproblems > PROFDATA_MAX_PROBLEMS) {
		snprintf(what, sizeof(what), "msprof: %u more data files read in part",
			 p->nproblems - PROFDATA_MAX_PROBLEMS);
		mark(t, what);
		LIT(&t->ob, "}}");
	}
	if (p->meta.incomplete) {
		snprintf(what, sizeof(what), "msprof: incomplete window (%s)",
			 p->meta.incomplete_reason);
		mark(t, what);
		LIT(&t->ob, "\"state\":\"incomplete\",\"incomplete_reason\":");
		ob_json_str(&t->ob, p->meta.incomplete_reason);
		LIT(&t->ob, "}}");
		any = true;
	}
	return any;
}

static int write_all(struct tl *t)
{
	const struct profdata *p = t->p;
	size_t i;
	int err;

	ob_char(&t->ob, '[');
	write_cann_names(t);
	err = write_devices_names(t);
	/* The runtime's first: ours then carry the ids of its same calls. */
	err = err ?: cann_each_call(p, write_cann_call, t);
	err = err ?: profdata_each_host(p, write_api, write_ioctl, t);
	if (err)
		return err;
	write_cann_tids(t);
	write_osrt_names(t);
	for (i = 0; i < p->ntasks; i++)
		write_task(t, &p->tasks[i]);
	for (i = 0; i < t->comm.n; i++)
		if (t->comm.v[i].raw)
			write_raw_op(t, &t->comm.v[i]);
		else
			write_comm_op(t, &t->comm.v[i]);
	err = overlap_each(p, write_overlap, t);
	if (err)
		return err;
	if (write_losses(t))
		thread(t, track_pid(t, SORT_CANN, HOST_DEVICE), 0, "msprof", 0);
	LIT(&t->ob, "\n]\n");
	return ob_flush(&t->ob);
}

int timeline_write(FILE *fp, const struct profdata *p)
{
	struct tl *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return -ENOMEM;
	ob_init(&t->ob, fp);
	t->p = p;
	t->pid = info_pid(p);
	t->first = true;
	err = api_texts(t);
	if (!err)
		err = copy_calls_load(&t->copies, p);
	if (!err)
		err = comm_ops_load(&t->comm, p);
	if (!err)
		err = write_all(t);
	free(t->text);
	copy_calls_free(&t->copies);
	comm_ops_free(&t->comm);
	free(t->io_tids.v);
	free(t->cann_tids.v);
	free(t->cann_of);
	free(t);
	if (err)
		return err;
	if (fflush(fp))		/* the reason, ENOSPC often, while errno holds it */
		return -errno;
	return ferror(fp) ? -EIO : 0;
}
