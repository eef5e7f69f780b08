// SPDX-License-Identifier: MIT
/*
 * The timeline's host slices: our API calls (their constant text rendered
 * once per API), the runtime's calls eBPF did not see, ioctls, and the
 * CANN and OS Runtime API processes' threads they lie on.  Written as the
 * host records are walked, never held.
 */
#include <errno.h>
#include <linux/ioctl.h>
#include <stdlib.h>

#include "cann.h"
#include "naming.h"
#include "osrt.h"
#include "timeline_parts.h"

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
	ob_u64(b, tl_pid(t, SORT_CANN, HOST_DEVICE));
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
int tl_api_texts(struct tl *t)
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

/*
 * The Python stack the call was made from (its own, or its task queue
 * item's enqueue's), as PyTorch's "Call stack".
 */
static void call_stack(struct tl *t, uint64_t conn)
{
	const struct profcall *c = profdata_call(t->p, conn);

	if (c)
		tl_call_stack(t, c->stack);
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
		tl_head(t, "Api@unknown_api", tl_pid(t, SORT_CANN, HOST_DEVICE),
			e->ns_tid);
		tl_span_args(t, e->start_ns, e->end_ns);
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
	tl_start(t);
	put_span(t, a->head);
	ob_u64(&t->ob, e->ns_tid);
	tl_span_args(t, e->start_ns, e->end_ns);
	LIT(&t->ob, "\"Thread Id\":");
	ob_u64(&t->ob, e->ns_tid);
	put_span(t, a->mid);
	ob_u64(&t->ob, conn);
	LIT(&t->ob, ",\"return\":");
	ob_i64(&t->ob, e->ret);
	LIT(&t->ob, ",\"depth\":");
	ob_u64(&t->ob, e->depth);
	/* A task queue's op: which call on the caller's thread asked for it. */
	if (conn && conn <= t->p->ncalls && t->p->calls[conn - 1].enqueue) {
		LIT(&t->ob, ",\"enqueue_connection_id\":");
		ob_u64(&t->ob, t->p->calls[conn - 1].enqueue);
	}
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
	call_stack(t, conn);
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
	/* On the thread's row of its other syscalls (--host-sys=osrt). */
	uint32_t tid = osrt_ns_tid(t->p->osrt, e->tid);

	tl_head(t, "ioctl", tl_pid(t, SORT_OSRT, HOST_DEVICE), tid);
	tl_span_args(t, e->start_ns, e->end_ns);
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
	return tl_idset_add(&t->io_tids, tid);
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

	if (c->ours)
		return note_seen(t, c);
	what = cann_call_name(c, num);
	snprintf(name, sizeof(name), "%s%s", cann_prefix(c->level), what);
	tl_head(t, name, tl_pid(t, SORT_CANN, HOST_DEVICE), c->tid);
	tl_span_args(t, c->begin_ns, c->end_ns);
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
	return tl_idset_add(&t->cann_tids, c->tid);
}

/* The CANN process and its threads: those of the index of calls. */
void tl_cann_names(struct tl *t)
{
	uint64_t pid = tl_pid(t, SORT_CANN, HOST_DEVICE);
	const struct profdata *p = t->p;
	size_t i;

	tl_process(t, "CANN", "CPU", SORT_CANN, HOST_DEVICE);
	for (i = 0; i < p->ncalls; i++)	/* by ns_tid */
		if (!i || p->calls[i].ns_tid != p->calls[i - 1].ns_tid)
			tl_numbered_thread(t, pid, "Thread", p->calls[i].ns_tid);
}

/* Threads only the runtime's calls were seen on. */
void tl_cann_tids(struct tl *t)
{
	uint64_t pid = tl_pid(t, SORT_CANN, HOST_DEVICE);
	const struct profdata *p = t->p;
	size_t i, lo, hi;

	tl_idset_close(&t->cann_tids);
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
			tl_numbered_thread(t, pid, "Thread", tid);
	}
}

void tl_osrt_names(struct tl *t)
{
	uint64_t pid = tl_pid(t, SORT_OSRT, HOST_DEVICE);
	size_t i;

	tl_idset_close(&t->io_tids);
	if (!t->io_tids.n)
		return;
	tl_process(t, "OS Runtime API", "CPU", SORT_OSRT, HOST_DEVICE);
	for (i = 0; i < t->io_tids.n; i++)
		tl_numbered_thread(t, pid, "Thread", t->io_tids.v[i]);
}

int tl_host(struct tl *t)
{
	return cann_each_call(t->p, write_cann_call, t) ?:
	       profdata_each_host(t->p, write_api, write_ioctl, t);
}
