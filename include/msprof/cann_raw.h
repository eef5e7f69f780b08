/* SPDX-License-Identifier: MIT */
/*
 * The raw files a CANN runtime's profiling writes into its PROF_ directory
 * (910B, platform_version "5"), as the agent writes them for npusim and as
 * export reads them back, whoever wrote them.  Layouts are packed, native
 * byte order: readers cast nothing, they copy each record out.  The facts
 * are those of the reference sheet cann-raw-formats.md; section numbers
 * below are its own.
 */
#ifndef MSPROF_CANN_RAW_H
#define MSPROF_CANN_RAW_H

#include <stdint.h>

#define CANN_MAGIC		0x5A5A	/* every host record (§2.1) */
#define CANN_STARS_MAGIC	0x6BD3	/* every stars_soc record (§3.1) */

/* Levels (§2.2): anything else is not a record. */
enum cann_level {
	CANN_LEVEL_PYTORCH_TX = 30000,
	CANN_LEVEL_PTA = 25000,
	CANN_LEVEL_MSPROFTX = 20500,
	CANN_LEVEL_ACL = 20000,
	CANN_LEVEL_MODEL = 15000,
	CANN_LEVEL_NODE = 10000,
	CANN_LEVEL_AICPU = 6000,
	CANN_LEVEL_HCCL = 5500,
	CANN_LEVEL_RUNTIME = 5000,
};

/* acl types are (group << 16) | index; the group is an AclApiTag (§2.3). */
enum cann_acl_group {
	CANN_ACL_OP = 1,
	CANN_ACL_MODEL = 2,
	CANN_ACL_RTS = 3,
	CANN_ACL_OTHERS = 4,
	CANN_ACL_NN = 5,
	CANN_ACL_ASCENDC = 6,
	CANN_ACL_HOST_HCCL = 7,
	CANN_ACL_DVPP = 9,
	CANN_ACL_GRAPH = 10,
	CANN_ACL_ATB = 11,
};

/* Types within a level that carry meaning of their own (§2.3). */
#define CANN_NODE_LAUNCH		5	/* API: an op launch, item = op name */
#define CANN_NODE_BASIC_INFO		0	/* compact */
#define CANN_NODE_HCCL_OP_INFO		10	/* compact */
#define CANN_NODE_TENSOR_INFO		1	/* additional */
#define CANN_NODE_CONTEXT_ID_INFO	4	/* additional */
#define CANN_HCCL_MASTER		0x010001	/* API: one HCCL task */
#define CANN_HCCL_INFO			0	/* additional */
#define CANN_RT_MEMCPY_INFO		801	/* compact */
#define CANN_RT_TASK_TRACK		802	/* compact */
#define CANN_RT_API_BASE		1000	/* runtime API types: 1000 + n */

/* Runtime task types, task_track's taskType (RT's numbers, §2.3). */
enum cann_task_type {
	CANN_TASK_KERNEL_AICORE = 0,
	CANN_TASK_KERNEL_AICPU = 1,
	CANN_TASK_EVENT_RECORD = 2,
	CANN_TASK_EVENT_WAIT = 3,
	CANN_TASK_MEMCPY_ASYNC = 5,
	CANN_TASK_MAINTENANCE = 6,
	CANN_TASK_NOTIFY_WAIT = 14,
	CANN_TASK_NOTIFY_RECORD = 15,
	CANN_TASK_MEMSET_ASYNC = 32,
	CANN_TASK_STARS_COMMON = 50,
	CANN_TASK_FFTS_PLUS = 52,
	CANN_TASK_KERNEL_AIVEC = 66,
	CANN_TASK_FLIP = 98,
	CANN_TASK_KERNEL_MIX_AIC = 108,
	CANN_TASK_KERNEL_MIX_AIV = 109,
};

/* node_basic_info's task type: GE's enum (§2.6). */
enum cann_ge_task_type {
	CANN_GE_AI_CORE = 0,
	CANN_GE_AI_CPU = 1,
	CANN_GE_AI_VECTOR_CORE = 2,
	CANN_GE_WRITE_BACK = 3,
	CANN_GE_MIX_AIC = 4,
	CANN_GE_MIX_AIV = 5,
	CANN_GE_FFTS_PLUS = 6,
	CANN_GE_DSA_SQE = 7,
	CANN_GE_DVPP = 8,
	CANN_GE_HCCL = 9,
	CANN_GE_FUSION = 10,
	CANN_GE_INVALID = 11,
};

/* stars_soc SQE types (§3.2): 0..20, anything above is no stars record. */
enum cann_sqe_type {
	CANN_SQE_AI_CORE = 0,
	CANN_SQE_AI_CPU = 1,
	CANN_SQE_AIV = 2,
	CANN_SQE_PLACE_HOLDER = 3,
	CANN_SQE_EVENT_RECORD = 4,
	CANN_SQE_EVENT_WAIT = 5,
	CANN_SQE_NOTIFY_RECORD = 6,
	CANN_SQE_NOTIFY_WAIT = 7,
	CANN_SQE_WRITE_VALUE = 8,
	CANN_SQE_SDMA = 11,
	CANN_SQE_MAX = 20,
};

/* stars_soc funcType (§3.1). */
#define CANN_STARS_START	0
#define CANN_STARS_END		1

#pragma pack(push, 1)

/* api_event files: an API call, or an event when end is all ones (§2.1). */
struct cann_api {
	uint16_t magic;
	uint16_t level;
	uint32_t type;
	uint32_t thread_id;
	uint32_t request_id;	/* events only; 0 for an API */
	uint64_t begin;
	uint64_t end;		/* CANN_EVENT_END: an event */
	uint64_t item_id;	/* a hash_dic id, or 0 */
};

#define CANN_EVENT_END	UINT64_MAX

/* The header of compact (64 B) and additional (256 B) records (§2.1). */
struct cann_rec_head {
	uint16_t magic;
	uint16_t level;
	uint32_t type;
	uint32_t thread_id;
	uint32_t data_len;	/* the body's own size */
	uint64_t timestamp;	/* the host clock of the API records */
};

#define CANN_COMPACT_SIZE	64
#define CANN_ADDITIONAL_SIZE	256

/* task_track, compact, runtime level, type 802 (§2.5). */
struct cann_task_track {
	struct cann_rec_head head;
	uint16_t device;	/* bits 0-11 device id, 12-15 device type */
	uint16_t stream;
	uint16_t task_id;
	uint16_t batch;		/* the flip count */
	uint64_t task_type;	/* enum cann_task_type, named in type_info_dic */
	uint64_t kernel_name;	/* hash_dic id; 0: none */
	uint8_t ext[16];	/* numBlocks, argsSize, ...: unread */
};

/* node_basic_info, compact, node level, type 0 (§2.6). */
struct cann_node_basic_info {
	struct cann_rec_head head;
	uint64_t op_name;	/* hash_dic id */
	uint32_t task_type;	/* enum cann_ge_task_type */
	uint64_t op_type;	/* hash_dic id */
	uint32_t block_num;	/* low 16: blocks; high 16: mix ratio */
	uint32_t op_flag;	/* non-zero: HF32 eligible */
	uint8_t op_state;
	uint8_t pad[11];
};

/*
 * memcpy_info, compact, runtime level, type 801 (§2.7).  The direction is
 * at 40 as the runtime writes it; Huawei's Python reads the u16 at 32.
 */
struct cann_memcpy_info {
	struct cann_rec_head head;
	uint64_t data_size;
	uint64_t max_size;
	uint16_t direction;	/* aclrtMemcpyKind */
	uint8_t pad[22];
};

/* hccl_info, additional, communication level (§2.8). */
struct cann_hccl_info {
	struct cann_rec_head head;
	uint64_t item_id;	/* hash_dic id of the task's name */
	uint64_t ccl_tag;
	uint64_t group_name;	/* hash_dic id */
	uint32_t local_rank;
	uint32_t remote_rank;
	uint32_t rank_size;
	uint32_t work_flow_mode;
	uint32_t plane_id;
	uint32_t ctx_id;
	uint64_t notify_id;	/* all ones: none */
	uint32_t stage;
	uint32_t role;		/* 0 dst, 1 src */
	double duration_estimated;
	uint64_t src_addr;
	uint64_t dst_addr;
	uint64_t data_size;
	uint32_t op_type;	/* 0 sum, 1 mul, 2 max, 3 min */
	uint32_t data_type;	/* HcclDataType */
	uint32_t link_type;
	uint32_t transport_type;
	uint32_t rdma_type;
	uint32_t reserved;
	uint8_t pad[112];
};

#define CANN_TENSORS	5
#define CANN_SHAPE_DIMS	8

struct cann_tensor {
	uint32_t tensor_type;	/* 0 input, 1 output */
	uint32_t format;
	uint32_t data_type;
	uint32_t shape[CANN_SHAPE_DIMS];	/* 0 ends the shape */
};

/* tensor_info, additional, node level, type 1 (§2.8). */
struct cann_tensor_info {
	struct cann_rec_head head;
	uint64_t op_name;	/* hash_dic id */
	uint32_t count;		/* tensors used, at most CANN_TENSORS */
	struct cann_tensor tensor[CANN_TENSORS];
};

/* stars_soc.data.N records, 910B (§3.1). */
struct cann_stars_log {
	uint16_t head;		/* bits 0-5 funcType, 6-9 counter, 10-15 SQE type */
	uint16_t magic;		/* CANN_STARS_MAGIC */
	uint16_t stream;
	uint16_t task_id;
	uint64_t syscnt;	/* device ticks, hwts_frequency */
	uint16_t reserved;
	uint16_t acc;		/* bits 0-5 acc id, 6-12 acsq id */
	uint8_t pad[44];
};

/* ts_track.data.N records: 40 bytes, tag in byte 1 (§3.4). */
struct cann_ts_flip {
	uint8_t mode;
	uint8_t tag;		/* CANN_TS_TAG_FLIP */
	uint16_t reserved;
	uint32_t reserved2;
	uint64_t syscnt;
	uint16_t stream;
	uint16_t flip_num;
	uint16_t reserved3;
	uint16_t task_id;
	uint8_t pad[16];
};

#define CANN_TS_TAG_FLIP	14

#pragma pack(pop)

_Static_assert(sizeof(struct cann_api) == 40, "MsprofApi is 40 bytes");
_Static_assert(sizeof(struct cann_rec_head) == 24, "a compact header is 24 bytes");
_Static_assert(sizeof(struct cann_task_track) == CANN_COMPACT_SIZE, "task_track");
_Static_assert(sizeof(struct cann_node_basic_info) == CANN_COMPACT_SIZE, "node_basic_info");
_Static_assert(sizeof(struct cann_memcpy_info) == CANN_COMPACT_SIZE, "memcpy_info");
_Static_assert(sizeof(struct cann_hccl_info) == CANN_ADDITIONAL_SIZE, "hccl_info");
_Static_assert(sizeof(struct cann_tensor_info) == CANN_ADDITIONAL_SIZE, "tensor_info");
_Static_assert(sizeof(struct cann_stars_log) == 64, "a stars_soc record");
_Static_assert(sizeof(struct cann_ts_flip) == 40, "a ts_track record");

#endif
