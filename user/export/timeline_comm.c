// SPDX-License-Identifier: MIT
/*
 * The timeline's Communication process: per group a thread of its ops and
 * the planes of their tasks; a runtime's collectives as Huawei's analysis
 * draws them (hccl_info's tasks, flows from the node launch), ours one
 * task each with the flow from its Hccl* call.
 */
#include <errno.h>
#include <stdlib.h>

#include "naming.h"
#include "timeline_parts.h"

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
			err = tl_idset_add(&planes, profdata_hccl(t->p,
				&t->p->tasks[c->tasks[op->first + k]])->plane);
	}
	tl_idset_close(&planes);
	for (i = 0; i < planes.n && !err; i++) {
		char name[32];

		snprintf(name, sizeof(name), "Plane %u", planes.v[i]);
		tl_thread(t, pid, plane_tid(t, planes.v[i]), name, plane_tid(t, planes.v[i]));
	}
	free(planes.v);
	return err;
}

int tl_comm_names(struct tl *t, uint32_t dev, const char *label)
{
	uint64_t pid = tl_pid(t, SORT_COMMUNICATION, dev);
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
			tl_process(t, "Communication", label, SORT_COMMUNICATION, dev);
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
		tl_thread(t, pid, tid, name, tid);
		if (!op->raw)
			tl_thread(t, pid, tid + 1, "Plane 0", tid + 1);
	}
	free(seen);
	return any ? write_planes(t, dev, pid) : 0;
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
	tl_head(t, name, pid, comm_tid(t, op->group));
	tl_span_args(t, op->start_ns, end_ns);
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

	tl_head(t, a->name, pid, tid);
	tl_span_args(t, d->start_ns, d->end_ns);
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
	uint64_t pid = tl_pid(t, SORT_COMMUNICATION, p->tasks[op->task].device);
	size_t k;

	comm_op_head(t, op, pid, op->end_ns, op->rank_size, "N/A");
	LIT(&t->ob, "-1}}");
	if (op->call_ns)
		tl_flow(t, tl_conn_flow(op->conn) - 1, op->call_tid, op->call_ns, pid,
			comm_tid(t, op->group), op->start_ns);
	for (k = 0; k < op->ntasks; k++) {
		const struct devtask *d = &p->tasks[t->comm.tasks[op->first + k]];

		write_raw_task(t, d, pid);
		/* msprof's flow to a collective's task: its copies' only. */
		if (op->call_ns && devop_is_copy(profdata_task_op(p, d)))
			tl_flow(t, tl_conn_flow(op->conn) | NO_ID, op->call_tid,
				op->call_ns, tl_pid(t, SORT_HARDWARE, d->device),
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
	uint64_t pid = tl_pid(t, SORT_COMMUNICATION, d->device);
	uint32_t tid = comm_tid(t, op->group);

	comm_op_head(t, op, pid, d->end_ns, 0, comm_data_type_name(op->data_type));
	ob_u64(&t->ob, op->count);
	LIT(&t->ob, ",\"relay\":\"no\",\"retry\":\"no\"}}");
	if (c)
		tl_flow(t, tl_conn_flow(op->conn), c->ns_tid, c->start_ns, pid, tid,
			d->start_ns);
	plane_task(t, d, pid, tid + 1, &(struct plane_args){
		.name = naming_devtask_name(p, d), .notify_id = "N/A",
		.src_rank = p->meta.rank_id, .dst_rank = NO_ID,
		.transport = "LOCAL", .data_type = comm_data_type_name(op->data_type),
		.link = "N/A", .bytes = comm_op_bytes(op),
	});
}

void tl_comm_ops(struct tl *t)
{
	size_t i;

	for (i = 0; i < t->comm.n; i++)
		if (t->comm.v[i].raw)
			write_raw_op(t, &t->comm.v[i]);
		else
			write_comm_op(t, &t->comm.v[i]);
}
