// SPDX-License-Identifier: MIT
/*
 * What npusim reports to its profiling library, as CANN's runtime does
 * (msprof/cann_report.h): each ACL call as an acl-level API, each submit
 * as a runtime-level API holding its task's task_track, each kernel
 * launch as a node-level launch with its op's info and shapes.
 */

#include <msprof/cann_report.h>

#include "npusim_internal.h"

/* The runtime's API types, 1000 + n (§2.3), and their names. */
enum rt_api { RT_KERNEL_LAUNCH = 1, RT_MEMCPY_ASYNC = 2 };

#define ACL_TYPE(name, group) \
	[NPUSIM_ACL_##name] = (CANN_ACL_##group << 16) | (NPUSIM_ACL_##name + 1),
#define ACL_NAME(name, group) [NPUSIM_ACL_##name] = #name,
static const uint32_t acl_types[] = { NPUSIM_ACL_APIS(ACL_TYPE) };
static const char *const acl_names[] = { NPUSIM_ACL_APIS(ACL_NAME) };

/* A task kind's task_track type and node_basic_info (GE) type. */
static const struct {
	uint32_t task;
	uint32_t ge;
} kind_types[] = {
	[NPUSIM_TASK_AI_CORE] = { CANN_TASK_KERNEL_AICORE, CANN_GE_AI_CORE },
	[NPUSIM_TASK_AI_VECTOR] = { CANN_TASK_KERNEL_AIVEC,
				    CANN_GE_AI_VECTOR_CORE },
	[NPUSIM_TASK_MEMCPY] = { CANN_TASK_MEMCPY_ASYNC, CANN_GE_INVALID },
	[NPUSIM_TASK_HOST] = { CANN_TASK_MEMCPY_ASYNC, CANN_GE_HCCL },
};

/* The runtime level's names: its task types, records and APIs. */
static const struct {
	uint32_t type;
	const char *name;
} rt_types[] = {
	{ CANN_TASK_KERNEL_AICORE, "KERNEL_AICORE" },
	{ CANN_TASK_KERNEL_AICPU, "KERNEL_AICPU" },
	{ CANN_TASK_EVENT_RECORD, "EVENT_RECORD" },
	{ CANN_TASK_EVENT_WAIT, "EVENT_WAIT" },
	{ CANN_TASK_MEMCPY_ASYNC, "MEMCPY_ASYNC" },
	{ CANN_TASK_MAINTENANCE, "MAINTENANCE" },
	{ CANN_TASK_NOTIFY_WAIT, "NOTIFY_WAIT" },
	{ CANN_TASK_NOTIFY_RECORD, "NOTIFY_RECORD" },
	{ CANN_TASK_KERNEL_AIVEC, "KERNEL_AIVEC" },
	{ CANN_TASK_FLIP, "FLIP_TASK" },
	{ CANN_RT_MEMCPY_INFO, "memcpy_info" },
	{ CANN_RT_TASK_TRACK, "task_track" },
	{ CANN_RT_API_BASE + RT_KERNEL_LAUNCH, "KernelLaunch" },
	{ CANN_RT_API_BASE + RT_MEMCPY_ASYNC, "MemcpyAsync" },
};

static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void register_names(void)
{
	size_t i;

	for (i = 0; i < NPUSIM_ACL_NONE; i++)
		msprof_reg_type_info(CANN_LEVEL_ACL, acl_types[i], acl_names[i]);
	for (i = 0; i < sizeof(rt_types) / sizeof(rt_types[0]); i++)
		msprof_reg_type_info(CANN_LEVEL_RUNTIME, rt_types[i].type,
				     rt_types[i].name);
}

uint64_t npusim_rep_begin(void)
{
	return msprof_report_begin(&names_once, register_names);
}

void npusim_rep_acl(enum npusim_acl api, uint64_t begin)
{
	if (api < NPUSIM_ACL_NONE)
		msprof_report_call(CANN_LEVEL_ACL, acl_types[api], begin, 0);
}

static void report_track(uint64_t ts, const struct npusim_submitted *sub,
			 uint16_t task_id, uint32_t task_type, uint64_t name)
{
	struct cann_task_track r = {
		.head = msprof_rec_head(CANN_LEVEL_RUNTIME, CANN_RT_TASK_TRACK,
					sizeof(r) - sizeof(r.head), ts),
		.device = sub->device & 0xfff,
		.stream = sub->stream,
		.task_id = task_id,
		.batch = sub->flip,
		.task_type = task_type,
		.kernel_name = name,
	};

	msprof_report_compact(MSPROF_REPORT_AGING, &r, sizeof(r));
}

/* RT's memcpy_info body: data size, max size, direction (18 bytes). */
#define MEMCPY_INFO_LEN	18

/* A copy's memcpy_info, stamped inside its runtime API. */
static void report_memcpy(uint64_t ts, size_t bytes, aclrtMemcpyKind kind)
{
	struct cann_memcpy_info mi = {
		.head = msprof_rec_head(CANN_LEVEL_RUNTIME, CANN_RT_MEMCPY_INFO,
					MEMCPY_INFO_LEN, ts),
		.data_size = bytes,
		.max_size = bytes,
		.direction = (uint16_t)kind,
	};

	msprof_report_compact(MSPROF_REPORT_AGING, &mi, sizeof(mi));
}

/*
 * A wrap first: a FLIP_TASK whose batch is the stream's new flip count,
 * stamped before the first task of that flip, so that counting the
 * flips in time order gives every task_track its batch (§4.2).
 */
void npusim_rep_submit(uint64_t begin, const struct npusim_kernel *kernel,
		       const char *name, const struct npusim_submitted *sub,
		       size_t copy_bytes, aclrtMemcpyKind copy_kind)
{
	bool copy = kernel->kind == NPUSIM_TASK_MEMCPY;

	if (!begin)
		return;
	if (sub->wrapped)
		report_track(begin, sub, 0, CANN_TASK_FLIP, 0);
	report_track(begin + 1, sub, sub->task_id,
		     kind_types[kernel->kind].task, msprof_hash_of(name));
	if (copy)
		report_memcpy(begin + 1, copy_bytes, copy_kind);
	msprof_report_call(CANN_LEVEL_RUNTIME, CANN_RT_API_BASE +
			   (copy || kernel->kind == NPUSIM_TASK_HOST ?
			    RT_MEMCPY_ASYNC : RT_KERNEL_LAUNCH), begin, 0);
}

/* RT's node_basic_info and tensor_info bodies (§2.6, §2.8). */
#define NODE_BASIC_INFO_LEN	29
#define TENSOR_INFO_LEN		232

static void report_node_info(uint64_t ts, const struct npusim_kernel *kernel,
			     uint64_t op, uint32_t block_dim, const void *args)
{
	struct cann_node_basic_info ni = {
		.head = msprof_rec_head(CANN_LEVEL_NODE, CANN_NODE_BASIC_INFO,
					NODE_BASIC_INFO_LEN, ts),
		.op_name = op,
		.task_type = kind_types[kernel->kind].ge,
		.op_type = msprof_hash_of(kernel->op_type),
		.block_num = block_dim & 0xffff,
	};
	struct cann_tensor_info ti = {
		.head = msprof_rec_head(CANN_LEVEL_NODE, CANN_NODE_TENSOR_INFO,
					TENSOR_INFO_LEN, ts),
		.op_name = op,
	};

	msprof_report_compact(MSPROF_REPORT_AGING, &ni, sizeof(ni));
	if (kernel->shapes) {
		kernel->shapes(args, &ti);
		msprof_report_additional(MSPROF_REPORT_UNAGING, &ti, sizeof(ti));
	}
}

void npusim_rep_node(uint64_t begin, const struct npusim_kernel *kernel,
		     uint32_t block_dim, const void *args)
{
	uint64_t op;

	if (!begin)
		return;
	op = msprof_hash_of(kernel->name);
	report_node_info(begin + 1, kernel, op, block_dim, args);
	msprof_report_call(CANN_LEVEL_NODE, CANN_NODE_LAUNCH, begin, op);
}
