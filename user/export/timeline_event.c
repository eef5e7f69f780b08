// SPDX-License-Identifier: MIT
/*
 * The trace event format's pieces as msprof writes them: an event's head
 * ({"name":..,"pid":..,"tid":..), its times on msprof's epoch scale, the
 * metadata events that name processes and threads, counters, the flows
 * that join a launch to what it launched, and the sets of ids they are
 * named from.
 */
#include <errno.h>
#include <stdlib.h>

#include "pyfloat.h"
#include "timeline_parts.h"

/* Sorts the set and drops repeats: it then holds each id once, ascending. */
void tl_idset_close(struct idset *s)
{
	s->n = profdata_sort_unique(s->v, s->n);
}

/*
 * Ids are appended and the set compacted when full, so that many ids (a
 * device file may name a million streams) cost n log n, not n squared,
 * and the memory stays within twice the distinct ids.
 */
int tl_idset_add(struct idset *s, uint32_t id)
{
	if (s->n && s->v[s->n - 1] == id)
		return 0;
	if (s->n == s->cap)
		tl_idset_close(s);
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

/* Opens the next event of the array, up to its name's value. */
void tl_start(struct tl *t)
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
void tl_head(struct tl *t, const char *name, uint64_t pid, uint64_t tid)
{
	tl_start(t);
	ob_json_str(&t->ob, name);
	pid_tid(t, pid, tid);
}

void tl_ts_epoch(struct tl *t, uint64_t epoch_ns)
{
	LIT(&t->ob, ",\"ts\":\"");
	ob_us3(&t->ob, epoch_ns);
	ob_char(&t->ob, '"');
}

void tl_counter(struct tl *t, const char *name, uint64_t pid, uint64_t epoch_ns,
		bool number_ts, const char *key, double v)
{
	char num[PYFLOAT_MAX];

	tl_start(t);
	ob_json_str(&t->ob, name);
	if (number_ts) {
		LIT(&t->ob, ",\"ts\":");
		ob_us3(&t->ob, epoch_ns);
	} else {
		tl_ts_epoch(t, epoch_ns);
	}
	LIT(&t->ob, ",\"pid\":");
	ob_u64(&t->ob, pid);
	LIT(&t->ob, ",\"tid\":0,\"args\":{");
	ob_json_str(&t->ob, key);
	ob_char(&t->ob, ':');
	pyfloat_repr(num, v);
	ob_str(&t->ob, num);
	LIT(&t->ob, "},\"ph\":\"C\"}");
}

void tl_ts(struct tl *t, uint64_t mono_ns)
{
	tl_ts_epoch(t, profmeta_epoch_ns(&t->p->meta, mono_ns));
}

/*
 * ,"ts":"..","dur":..,"ph":"X","args":{ — dur on the same scale as ts, so
 * that ts + dur is where the slice ends and slices that tile a span (the
 * Overlap Analysis) add up to it exactly.
 */
void tl_span_args(struct tl *t, uint64_t start_ns, uint64_t end_ns)
{
	uint64_t start = profmeta_epoch_ns(&t->p->meta, start_ns);
	uint64_t end = profmeta_epoch_ns(&t->p->meta, end_ns);

	tl_ts_epoch(t, start);
	LIT(&t->ob, ",\"dur\":");
	ob_us3(&t->ob, end > start ? end - start : 0);
	LIT(&t->ob, ",\"ph\":\"X\",\"args\":{");
}

static void meta_str(struct tl *t, const char *what, uint64_t pid,
		     uint64_t tid, const char *key, const char *val)
{
	tl_head(t, what, pid, tid);
	LIT(&t->ob, ",\"ph\":\"M\",\"args\":{\"");
	ob_str(&t->ob, key);
	LIT(&t->ob, "\":");
	ob_json_str(&t->ob, val);
	LIT(&t->ob, "}}");
}

static void meta_sort(struct tl *t, const char *what, uint64_t pid,
		      uint64_t tid, uint64_t sort)
{
	tl_head(t, what, pid, tid);
	LIT(&t->ob, ",\"ph\":\"M\",\"args\":{\"sort_index\":");
	ob_u64(&t->ob, sort);
	LIT(&t->ob, "}}");
}

void tl_process(struct tl *t, const char *name, const char *label,
		unsigned int sort, uint32_t dev)
{
	uint64_t pid = tl_pid(t, sort, dev);

	meta_str(t, "process_name", pid, 0, "name", name);
	meta_str(t, "process_labels", pid, 0, "labels", label);
	meta_sort(t, "process_sort_index", pid, 0, sort);
}

void tl_thread(struct tl *t, uint64_t pid, uint32_t tid, const char *name,
	       uint64_t sort)
{
	meta_str(t, "thread_name", pid, tid, "name", name);
	meta_sort(t, "thread_sort_index", pid, tid, sort);
}

void tl_numbered_thread(struct tl *t, uint64_t pid, const char *what,
			uint32_t tid)
{
	char name[32];

	snprintf(name, sizeof(name), "%s %u", what, tid);
	tl_thread(t, pid, tid, name, tid);
}

/* One end of a flow: "HostToDevice<id>", id conn << 32 as msprof's. */
void tl_flow_id(struct tl *t, unsigned __int128 id, uint64_t pid,
		uint32_t tid, bool finish, uint64_t at_ns)
{
	char digits[48];
	size_t n = sizeof(digits);

	digits[--n] = '\0';
	do {
		digits[--n] = (char)('0' + (int)(id % 10));
		id /= 10;
	} while (id);
	tl_start(t);
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
	tl_ts(t, at_ns);
	if (finish)
		LIT(&t->ob, ",\"bp\":\"e\"}");
	else
		ob_char(&t->ob, '}');
}

/*
 * A flow from the CANN process's thread from_tid at from_ns to (pid, tid)
 * at to_ns: a launch's, from its call to what it launched.
 */
void tl_flow(struct tl *t, unsigned __int128 id, uint32_t from_tid,
	     uint64_t from_ns, uint64_t pid, uint32_t tid, uint64_t to_ns)
{
	tl_flow_id(t, id, tl_pid(t, SORT_CANN, HOST_DEVICE), from_tid, false,
		   from_ns);
	tl_flow_id(t, id, pid, tid, true, to_ns);
}

/*
 * The Python stack of chain (0: none) as PyTorch's "Call stack" argument:
 * "file(line): func" innermost first, joined by ";\r\n", "..." last when
 * the stack was cut.
 */
void tl_call_stack(struct tl *t, uint32_t chain)
{
	const struct pystacks *py = &t->p->py;
	uint32_t text;
	size_t i;

	if (!chain || (!py->chains[chain].n && !py->chains[chain].cut))
		return;
	LIT(&t->ob, ",\"Call stack\":\"");
	for (i = 0; pystacks_frame(py, chain, i, &text); i++) {
		if (i)
			LIT(&t->ob, ";\\r\\n");
		ob_json_chars(&t->ob, strtab_str(&py->text, text));
	}
	if (py->chains[chain].cut)
		ob_str(&t->ob, i ? ";\\r\\n..." : "...");
	ob_char(&t->ob, '"');
}
