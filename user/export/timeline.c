// SPDX-License-Identifier: MIT
/* The timeline: host API and ioctl slices, device tasks, and flows. */
#include <errno.h>
#include <inttypes.h>
#include <linux/ioctl.h>
#include <stdbool.h>
#include <string.h>

#include "json.h"
#include "timeline.h"

/* Devices get trace pids of their own, far from real ones. */
#define DEVICE_PID_BASE 2000000000

struct writer {
	FILE *fp;
	bool first;
};

/* Starts the next event of the array. */
static FILE *ev(struct writer *w)
{
	fputs(w->first ? "\n" : ",\n", w->fp);
	w->first = false;
	return w->fp;
}

static void us(FILE *fp, const char *key, uint64_t ns)
{
	fprintf(fp, "\"%s\":%" PRIu64 ".%03" PRIu64, key, ns / 1000, ns % 1000);
}

static void meta(struct writer *w, const char *what, long pid, long tid,
		 const char *name, long sort)
{
	FILE *fp = ev(w);

	fprintf(fp, "{\"ph\":\"M\",\"name\":\"%s_name\",\"pid\":%ld,\"tid\":%ld,\"args\":{\"name\":",
		what, pid, tid);
	json_put_str(fp, name);
	fputs("}}", fp);
	fprintf(ev(w), "{\"ph\":\"M\",\"name\":\"%s_sort_index\",\"pid\":%ld,\"tid\":%ld,\"args\":{\"sort_index\":%ld}}",
		what, pid, tid, sort);
}

/* Names each device and stream once; seen holds the tracks named. */
static void name_device_track(struct writer *w, uint64_t *seen, size_t *nseen,
			      size_t cap, uint32_t device, uint32_t stream)
{
	uint64_t dev_key = (uint64_t)device << 32 | UINT32_MAX;
	uint64_t key = (uint64_t)device << 32 | stream;
	long dpid = DEVICE_PID_BASE + (long)device;
	bool dev_seen = false;
	char name[64];
	size_t i;

	for (i = 0; i < *nseen; i++) {
		if (seen[i] == key)
			return;
		dev_seen |= seen[i] == dev_key;
	}
	if (*nseen + 2 > cap)
		return;
	if (!dev_seen) {
		seen[(*nseen)++] = dev_key;
		snprintf(name, sizeof(name), "NPU %u", device);
		meta(w, "process", dpid, 0, name, 1 + device);
	}
	seen[(*nseen)++] = key;
	snprintf(name, sizeof(name), "Stream %u", stream);
	meta(w, "thread", dpid, stream, name, stream);
}

static void write_names(struct writer *w, const struct profdata *p)
{
	uint64_t seen[256];
	size_t i, nseen = 0;
	char name[128];

	snprintf(name, sizeof(name), "Host %s (pid %d)", p->meta.comm, p->meta.pid);
	meta(w, "process", p->meta.pid, 0, name, 0);
	for (i = 0; i < p->ntids; i++) {
		snprintf(name, sizeof(name), "Thread %u", p->tids[i]);
		meta(w, "thread", p->meta.pid, p->tids[i], name, p->tids[i]);
	}
	for (i = 0; i < p->ntasks; i++)
		name_device_track(w, seen, &nseen, 256, p->tasks[i].device,
				  p->tasks[i].stream);
}

static void write_args(FILE *fp, const struct api_desc *d,
		       const struct msprof_api_event *e)
{
	int i;

	for (i = 0; d && i < MSPROF_PROBE_ARGS; i++) {
		if (!d->args[i] || !*d->args[i])
			continue;
		fputc(',', fp);
		json_put_str(fp, d->args[i]);
		switch (d->kinds[i]) {
		case MSPROF_ARG_UINT:
			fprintf(fp, ":%llu", (unsigned long long)e->args[i]);
			break;
		case MSPROF_ARG_INT:
			fprintf(fp, ":%lld", (long long)(int32_t)e->args[i]);
			break;
		default:
			fprintf(fp, ":\"0x%llx\"", (unsigned long long)e->args[i]);
			break;
		}
	}
}

struct host_walk {
	struct writer *w;
	const struct profdata *p;
};

static int write_api(const struct msprof_api_event *e, uint64_t conn, void *ctx)
{
	struct host_walk *hw = ctx;
	const struct api_desc *d = profdata_desc(hw->p, e->api_id);
	FILE *fp = ev(hw->w);

	(void)conn;
	fputs("{\"ph\":\"X\",\"cat\":", fp);
	json_put_str(fp, d ? msprof_layer_name(d->layer) : "Unknown");
	fputs(",\"name\":", fp);
	json_put_str(fp, d ? d->name : "unknown_api");
	fprintf(fp, ",\"pid\":%d,\"tid\":%u,", hw->p->meta.pid, e->tid);
	us(fp, "ts", e->start_ns);
	fputc(',', fp);
	us(fp, "dur", e->end_ns - e->start_ns);
	fprintf(fp, ",\"args\":{\"return\":%lld,\"depth\":%u",
		(long long)e->ret, e->depth);
	write_args(fp, d, e);
	fputs("}}", fp);
	return 0;
}

static int write_ioctl(const struct msprof_ioctl_payload_event *pe, void *ctx)
{
	struct host_walk *hw = ctx;
	const struct msprof_ioctl_event *e = &pe->io;
	FILE *fp = ev(hw->w);
	uint32_t j;

	fprintf(fp, "{\"ph\":\"X\",\"cat\":\"driver\",\"name\":\"ioctl\",\"pid\":%d,\"tid\":%u,",
		hw->p->meta.pid, e->tid);
	us(fp, "ts", e->start_ns);
	fputc(',', fp);
	us(fp, "dur", e->end_ns - e->start_ns);
	fprintf(fp, ",\"args\":{\"fd\":%u,\"cmd\":\"0x%08x\",\"dir\":%u,\"type\":%u,\"nr\":%u,\"size\":%u,\"dev\":\"%u:%u\",\"return\":%lld",
		e->fd, e->cmd, _IOC_DIR(e->cmd), _IOC_TYPE(e->cmd),
		_IOC_NR(e->cmd), _IOC_SIZE(e->cmd), e->dev >> 20,
		e->dev & 0xfffff, (long long)e->ret);
	if (pe->payload_len) {
		fputs(",\"payload\":\"", fp);
		for (j = 0; j < pe->payload_len && j < MSPROF_IOCTL_PAYLOAD; j++)
			fprintf(fp, "%02x", pe->payload[j]);
		fputc('"', fp);
	}
	fputs("}}", fp);
	return 0;
}

/* A device task slice and, when its launch is known, the flow from it. */
static void write_task(struct writer *w, const struct profdata *p,
		       const struct devtask *t, size_t flow_id)
{
	const struct devtask *r = t;
	long dpid = DEVICE_PID_BASE + (long)r->device;
	FILE *fp = ev(w);

	fputs("{\"ph\":\"X\",\"cat\":\"device\",\"name\":", fp);
	json_put_str(fp, strtab_str(&p->names, t->name));
	fprintf(fp, ",\"pid\":%ld,\"tid\":%u,", dpid, r->stream);
	us(fp, "ts", r->start_ns);
	fputc(',', fp);
	us(fp, "dur", r->end_ns - r->start_ns);
	fprintf(fp, ",\"args\":{\"task_id\":%u,\"stream_id\":%u,\"block_dim\":%u,\"host_tid\":%u}}",
		r->task_id, r->stream, r->block_dim, r->host_tid);
	if (!t->conn)
		return;
	fp = ev(w);
	fprintf(fp, "{\"ph\":\"s\",\"cat\":\"HostToDevice\",\"name\":\"acl_to_npu\",\"id\":%zu,\"pid\":%d,\"tid\":%u,",
		flow_id, p->meta.pid, r->host_tid);
	us(fp, "ts", r->submit_ns);
	fputc('}', fp);
	fp = ev(w);
	fprintf(fp, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"HostToDevice\",\"name\":\"acl_to_npu\",\"id\":%zu,\"pid\":%ld,\"tid\":%u,",
		flow_id, dpid, r->stream);
	us(fp, "ts", r->start_ns);
	fputc('}', fp);
}

/* A global marker at the window's end, with what it says in args. */
static FILE *mark(struct writer *w, const struct profdata *p, const char *what)
{
	FILE *fp = ev(w);

	fputs("{\"ph\":\"i\",\"s\":\"g\",\"name\":", fp);
	json_put_str(fp, what);
	fprintf(fp, ",\"pid\":%d,\"tid\":0,", p->meta.pid);
	us(fp, "ts", p->end_mono_ns);
	fputs(",\"args\":{", fp);
	return fp;
}

/* Lost data is never silent: markers, and a label on the host process. */
static void write_losses(struct writer *w, const struct profdata *p)
{
	char what[512];
	unsigned int i;
	FILE *fp;

	if (p->meta.lost_events) {
		snprintf(what, sizeof(what), "msprof: %llu host events lost (ring buffer full)",
			 p->meta.lost_events);
		fprintf(mark(w, p, what), "\"lost_events\":%llu}}", p->meta.lost_events);
	}
	for (i = 0; i < p->nproblems && i < PROFDATA_MAX_PROBLEMS; i++) {
		const struct profdata_problem *pb = &p->problems[i];
		char why[256];

		recfile_strerror(why, sizeof(why), pb->err, &pb->stop);
		snprintf(what, sizeof(what), "msprof: %s: %s", pb->file, why);
		fp = mark(w, p, what);
		fputs("\"file\":", fp);
		json_put_str(fp, pb->file);
		fputs(",\"problem\":", fp);
		json_put_str(fp, why);
		fputs("}}", fp);
	}
	if (p->nproblems > PROFDATA_MAX_PROBLEMS) {
		snprintf(what, sizeof(what), "msprof: %u more data files read in part",
			 p->nproblems - PROFDATA_MAX_PROBLEMS);
		fputs("}}", mark(w, p, what));
	}
	if (!p->meta.incomplete)
		return;
	snprintf(what, sizeof(what), "msprof: incomplete window (%s)",
		 p->meta.incomplete_reason);
	fp = mark(w, p, what);
	fputs("\"state\":\"incomplete\",\"incomplete_reason\":", fp);
	json_put_str(fp, p->meta.incomplete_reason);
	fputs("}}", fp);
	fp = ev(w);
	fprintf(fp, "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":%d,\"tid\":0,\"args\":{\"labels\":",
		p->meta.pid);
	json_put_str(fp, what + strlen("msprof: "));
	fputs("}}", fp);
}

int timeline_write(FILE *fp, const struct profdata *p)
{
	struct writer w = { .fp = fp, .first = true };
	struct host_walk hw = { .w = &w, .p = p };
	size_t i;
	int err;

	fputc('[', fp);
	write_names(&w, p);
	err = profdata_each_host(p, write_api, write_ioctl, &hw);
	if (err)
		return err;
	for (i = 0; i < p->ntasks; i++)
		write_task(&w, p, &p->tasks[i], i + 1);
	write_losses(&w, p);
	fputs("\n]\n", fp);
	if (fflush(fp))		/* the reason, ENOSPC often, while errno holds it */
		return -errno;
	return ferror(fp) ? -EIO : 0;
}
