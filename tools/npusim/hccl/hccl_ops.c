// SPDX-License-Identifier: MIT
/*
 * The collectives.  Each call checks its arguments and enqueues one device
 * task on the caller's stream; the task, on the device's thread, puts this
 * rank's data in its slot of the shared segment, waits at the barrier for
 * every rank (the wait a slow rank causes the others), takes what it needs
 * from the slots and waits again so that no slot is refilled while read.
 */
#include <stdlib.h>
#include <string.h>

#include <npusim/npusim_task.h>

#include "hccl_internal.h"

enum coll_kind { COLL_ALL_REDUCE, COLL_BROADCAST, COLL_ALL_GATHER,
		 COLL_REDUCE_SCATTER };

/* The task names, as CANN's graph names its communication ops. */
static const char *const coll_names[] = {
	[COLL_ALL_REDUCE] = "hcom_allReduce_",
	[COLL_BROADCAST] = "hcom_broadcast_",
	[COLL_ALL_GATHER] = "hcom_allGather_",
	[COLL_REDUCE_SCATTER] = "hcom_reduceScatter_",
};

/* Their op types, and the call each is. */
static const char *const coll_types[] = {
	[COLL_ALL_REDUCE] = "HcomAllReduce",
	[COLL_BROADCAST] = "HcomBroadcast",
	[COLL_ALL_GATHER] = "HcomAllGather",
	[COLL_REDUCE_SCATTER] = "HcomReduceScatter",
};

static const enum hccl_api coll_apis[] = {
	[COLL_ALL_REDUCE] = HCCL_API_HcclAllReduce,
	[COLL_BROADCAST] = HCCL_API_HcclBroadcast,
	[COLL_ALL_GATHER] = HCCL_API_HcclAllGather,
	[COLL_REDUCE_SCATTER] = HCCL_API_HcclReduceScatter,
};

struct coll {
	enum coll_kind kind;
	struct hccl_comm *comm;
	const void *send;
	void *recv;
	uint64_t count;		/* elements this rank receives, per rank */
	HcclDataType type;
	HcclReduceOp op;
	uint32_t root;
};

/* dst = the op over every rank's slot, from offset bytes on. */
static void reduce_slots(const struct coll *c, void *dst, size_t offset)
{
	const struct hccl_seg *seg = &c->comm->seg;
	size_t bytes = c->count * hccl_type_size(c->type);
	uint32_t r;

	memcpy(dst, hccl_seg_slot(seg, 0) + offset, bytes);
	for (r = 1; r < c->comm->nranks; r++)
		hccl_reduce(dst, hccl_seg_slot(seg, r) + offset, c->count,
			    c->type, c->op);
}

/* --- the device task ------------------------------------------------------ */

static size_t in_bytes(const struct coll *c)
{
	size_t bytes = c->count * hccl_type_size(c->type);

	return c->kind == COLL_REDUCE_SCATTER ? bytes * c->comm->nranks : bytes;
}

static void coll_take(const struct coll *c)
{
	const struct hccl_seg *seg = &c->comm->seg;
	size_t bytes = c->count * hccl_type_size(c->type);
	uint32_t r;

	switch (c->kind) {
	case COLL_ALL_REDUCE:
		reduce_slots(c, c->recv, 0);
		break;
	case COLL_BROADCAST:
		if (c->comm->rank != c->root)
			memcpy(c->recv, hccl_seg_slot(seg, c->root), bytes);
		break;
	case COLL_ALL_GATHER:
		for (r = 0; r < c->comm->nranks; r++)
			memcpy((unsigned char *)c->recv + r * bytes,
			       hccl_seg_slot(seg, r), bytes);
		break;
	case COLL_REDUCE_SCATTER:
		reduce_slots(c, c->recv, c->comm->rank * bytes);
		break;
	}
}

static void coll_run(void *arg)
{
	struct coll *c = arg;
	struct hccl_comm *comm = c->comm;
	uint64_t deadline = hccl_deadline("HCCL_EXEC_TIMEOUT");
	bool gives = c->kind != COLL_BROADCAST || comm->rank == c->root;

	if (gives)
		memcpy(hccl_seg_slot(&comm->seg, comm->rank), c->send,
		       in_bytes(c));
	if (hccl_seg_barrier(&comm->seg, deadline) == 0) {
		coll_take(c);
		if (hccl_seg_barrier(&comm->seg, deadline) == 0)
			goto out;
	}
	atomic_store(&comm->failed, 1);
out:
	hccl_comm_put(comm);
	free(c);
}

/* --- the calls ------------------------------------------------------------ */

static HcclResult coll_check(const struct coll *c)
{
	size_t size = hccl_type_size(c->type);
	bool reduces = c->kind == COLL_ALL_REDUCE ||
		       c->kind == COLL_REDUCE_SCATTER;

	if (!c->send || !c->recv)
		return HCCL_E_PTR;
	if (!size || (c->kind == COLL_BROADCAST && c->root >= c->comm->nranks))
		return HCCL_E_PARA;
	if (reduces && (unsigned int)c->op >= HCCL_REDUCE_RESERVED)
		return HCCL_E_PARA;
	if (reduces && !hccl_type_reduces(c->type))
		return HCCL_E_NOT_SUPPORT;
	if (!c->count || c->count > HCCL_SIM_MAX_BYTES / size ||
	    in_bytes(c) > HCCL_SIM_MAX_BYTES)
		return HCCL_E_PARA;
	return atomic_load(&c->comm->failed) ? HCCL_E_TIMEOUT : HCCL_SUCCESS;
}

/*
 * The collective's one device task, reported as CANN's HCCL reports an
 * op: a node-level launch around a communication-level task, inside
 * which the runtime reports its submit.
 */
static HcclResult coll_launch(struct coll *c, aclrtStream stream)
{
	struct hccl_task_info ti = {
		.op_name = coll_names[c->kind], .rank = c->comm->rank,
		.nranks = c->comm->nranks, .src = c->send, .dst = c->recv,
		.bytes = in_bytes(c), .reduce_op = c->op, .data_type = c->type,
	};
	uint64_t op = hccl_prof_begin(), task = hccl_prof_begin();
	enum coll_kind kind = c->kind;
	aclError err;

	err = npusimLaunchHostTask(stream, coll_names[c->kind], coll_run, c);
	if (err != ACL_SUCCESS)
		return HCCL_E_RUNTIME;
	/* c is the task's now, maybe freed: ti was taken before. */
	hccl_prof_task(task, &ti);
	hccl_prof_op(op, ti.op_name, coll_types[kind]);
	return HCCL_SUCCESS;
}

static HcclResult coll_submit(struct coll *args, HcclComm comm,
			      aclrtStream stream)
{
	uint64_t begin = hccl_prof_begin();
	struct coll *c;
	HcclResult ret;

	args->comm = hccl_comm_hold(comm);
	ret = args->comm ? coll_check(args) : HCCL_E_PARA;
	c = ret ? NULL : malloc(sizeof(*c));
	if (!ret && !c)
		ret = HCCL_E_MEMORY;
	if (!ret) {
		*c = *args;
		ret = coll_launch(c, stream);
		if (ret)
			free(c);
	}
	if (ret && args->comm)
		hccl_comm_put(args->comm);
	hccl_prof_acl(coll_apis[args->kind], begin);
	return ret;
}

HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count,
			 HcclDataType dataType, HcclReduceOp op, HcclComm comm,
			 aclrtStream stream)
{
	struct coll c = {
		.kind = COLL_ALL_REDUCE, .send = sendBuf, .recv = recvBuf,
		.count = count, .type = dataType, .op = op,
	};

	return coll_submit(&c, comm, stream);
}

/* The root's buffer is read, every other rank's written. */
HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType,
			 uint32_t root, HcclComm comm, aclrtStream stream)
{
	struct coll c = {
		.kind = COLL_BROADCAST, .send = buf, .recv = buf,
		.count = count, .type = dataType, .root = root,
	};

	return coll_submit(&c, comm, stream);
}

HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount,
			 HcclDataType dataType, HcclComm comm,
			 aclrtStream stream)
{
	struct coll c = {
		.kind = COLL_ALL_GATHER, .send = sendBuf, .recv = recvBuf,
		.count = sendCount, .type = dataType,
	};

	return coll_submit(&c, comm, stream);
}

HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
			     HcclDataType dataType, HcclReduceOp op,
			     HcclComm comm, aclrtStream stream)
{
	struct coll c = {
		.kind = COLL_REDUCE_SCATTER, .send = sendBuf, .recv = recvBuf,
		.count = recvCount, .type = dataType, .op = op,
	};

	return coll_submit(&c, comm, stream);
}
