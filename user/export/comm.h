/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_COMM_H
#define MSPROF_COMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profdata.h"

/*
 * A window's collective communication ops as msprof shows them: one op a
 * collective's device task (Task Type HCCL), with what its Hccl* call
 * said (count, data type, communicator) when that call was recorded
 * (--hccl=on).
 */
#define COMM_UNKNOWN	UINT32_MAX	/* a group, data type not known */

struct comm_op {
	size_t task;		/* its first task, in profdata.tasks */
	uint64_t start_ns, end_ns;	/* its first task's start, its last's end */
	/*
	 * The launching call: eBPF's, or with the runtime's hccl_info its node
	 * launch, by the runtime's connection id (raw); 0: none seen.
	 */
	uint64_t conn;
	uint64_t call_ns;	/* raw: where the node launch began; 0: not found */
	uint32_t call_tid;
	uint64_t count;		/* elements, as the call gave them; 0: unknown */
	uint64_t bytes;		/* count's bytes, or the sum of its tasks' (raw) */
	uint32_t data_type;	/* HcclDataType, ENUM_HCCL_DATA_TYPE's id */
	uint32_t group;		/* below comm_ops.ngroups; COMM_UNKNOWN: no call seen */
	uint32_t seq;		/* the op's place in its group, from 0 */
	uint64_t comm;		/* the communicator handle; raw: the group's hash id */
	uint32_t group_name;	/* raw: in profdata.names; NO_STR: numbered */
	uint32_t rank_size;	/* raw: hccl_info's; 0: not known */
	size_t first, ntasks;	/* its tasks, in comm_ops.tasks */
	bool raw;		/* from the runtime's hccl_info (§4.4) */
};

struct comm_ops {
	struct comm_op *v;	/* by device, then start */
	size_t n;
	size_t ngroups;		/* numbered in order of their first op */
	size_t *tasks;		/* in profdata.tasks, by op, each op's by start */
};

/* The ops of p (none: n 0); -ENOMEM.  comm_ops_free() either way. */
int comm_ops_load(struct comm_ops *c, const struct profdata *p);
void comm_ops_free(struct comm_ops *c);

/*
 * An op's group's name: the runtime's (hccl_info), else one the same on
 * every rank that made its communicators in the same order (a collective's
 * ranks must): the first "hccl_world_group", as CANN names the world's,
 * then "hccl_group_<n>"; "N/A" when unknown.
 */
void comm_group_name(char *buf, size_t len, const struct profdata *p,
		     const struct comm_op *op);

/*
 * Whether its Hccl* call was seen, so that it has a group: what matches
 * an op across ranks.
 */
static inline bool comm_op_grouped(const struct comm_op *op)
{
	return op->group != COMM_UNKNOWN;
}

/*
 * The op's type: the runtime's op type (node_basic_info, "HcomAllReduce"),
 * else its task's name ("hcom_allReduce_").
 */
const char *comm_op_type(const struct profdata *p, const struct comm_op *op);

/*
 * msprof's op name: its task's name, the group's last 3 characters (of
 * its hash id in decimal, raw, as Huawei's analysis takes them), the op's
 * place in its group and the iteration (1: we see no iterations), joined
 * by '_': "hcom_allReduce__oup_0_1", raw "hcom_allReduce__289_0_1".
 */
void comm_op_name(char *buf, size_t len, const struct profdata *p,
		  const struct comm_op *op);

/* ENUM_HCCL_DATA_TYPE's name of a data type; "N/A" if unknown. */
const char *comm_data_type_name(uint32_t data_type);
/* Its size in bytes; 0 if unknown. */
unsigned int comm_data_type_size(uint32_t data_type);
/* The bytes an op moves; 0 if unknown. */
static inline uint64_t comm_op_bytes(const struct comm_op *op)
{
	return op->bytes;
}

/* The ops of the runtime's hccl_info (comm_cann.c), appended to c->v. */
int comm_cann_ops(struct comm_ops *c, const struct profdata *p);
/* Whether t is a task of such an op. */
bool comm_cann_task(const struct profdata *p, const struct devtask *t);

#endif
