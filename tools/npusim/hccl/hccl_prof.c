// SPDX-License-Identifier: MIT
/*
 * What npusim's HCCL reports to the profiling library, as CANN's HCCL
 * does (msprof/cann_report.h): each Hccl* call as an acl-level API of
 * the HOST_HCCL group, each collective as a node-level op, and each of
 * its device tasks as a communication-level task with its hccl_info; the
 * runtime (npusimLaunchHostTask) reports the task's submit inside it.
 */

#include <msprof/cann_report.h>

#include "hccl_internal.h"

/* What the sim's collectives are, as CANN's HCCL names them. */
#define TASK_NAME	"Memcpy"	/* each is one copy task on the SDMA */
#define GROUP_NAME	"hccl_world_group"
#define NODE_BASIC_INFO_LEN	29	/* RT's body sizes (§2.6, §2.8) */
#define HCCL_INFO_LEN		120
#define LINK_ON_CHIP		0
#define TRANSPORT_SDMA		0

#define API_NAME(name) #name,
static const char *const api_names[] = { HCCL_APIS(API_NAME) };

static uint32_t api_type(enum hccl_api api)
{
	return (CANN_ACL_HOST_HCCL << 16) | (api + 1);
}

static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void register_names(void)
{
	unsigned int i;

	for (i = 0; i < HCCL_API_NONE; i++)
		msprof_reg_type_info(CANN_LEVEL_ACL, api_type(i), api_names[i]);
}

uint64_t hccl_prof_begin(void)
{
	return msprof_report_begin(&names_once, register_names);
}

void hccl_prof_acl(enum hccl_api api, uint64_t begin)
{
	if (api < HCCL_API_NONE)
		msprof_report_call(CANN_LEVEL_ACL, api_type(api), begin, 0);
}

static void report_info(uint64_t ts, const struct hccl_task_info *ti,
			uint64_t task)
{
	struct cann_hccl_info hi = {
		.head = msprof_rec_head(CANN_LEVEL_HCCL, CANN_HCCL_INFO,
					HCCL_INFO_LEN, ts),
		.item_id = task,
		.ccl_tag = msprof_hash_of(ti->op_name),
		.group_name = msprof_hash_of(GROUP_NAME),
		.local_rank = ti->rank,
		.remote_rank = ti->rank,
		.rank_size = ti->nranks,
		.notify_id = UINT64_MAX,
		.role = 1,
		.src_addr = (uintptr_t)ti->src,
		.dst_addr = (uintptr_t)ti->dst,
		.data_size = ti->bytes,
		.op_type = ti->reduce_op,
		.data_type = ti->data_type,
		.link_type = LINK_ON_CHIP,
		.transport_type = TRANSPORT_SDMA,
	};

	msprof_report_additional(MSPROF_REPORT_UNAGING, &hi, sizeof(hi));
}

void hccl_prof_task(uint64_t begin, const struct hccl_task_info *ti)
{
	uint64_t task;

	if (!begin)
		return;
	task = msprof_hash_of(TASK_NAME);
	report_info(begin + 1, ti, task);
	msprof_report_call(CANN_LEVEL_HCCL, CANN_HCCL_MASTER, begin, task);
}

static void report_op_info(uint64_t ts, uint64_t op, const char *op_type)
{
	struct cann_node_basic_info ni = {
		.head = msprof_rec_head(CANN_LEVEL_NODE, CANN_NODE_BASIC_INFO,
					NODE_BASIC_INFO_LEN, ts),
		.op_name = op,
		.task_type = CANN_GE_HCCL,
		.op_type = msprof_hash_of(op_type),
	};

	msprof_report_compact(MSPROF_REPORT_AGING, &ni, sizeof(ni));
}

void hccl_prof_op(uint64_t begin, const char *op_name, const char *op_type)
{
	uint64_t op;

	if (!begin)
		return;
	op = msprof_hash_of(op_name);
	report_op_info(begin + 1, op, op_type);
	msprof_report_call(CANN_LEVEL_NODE, CANN_NODE_LAUNCH, begin, op);
}
