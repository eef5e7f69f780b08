/* SPDX-License-Identifier: MIT */
/*
 * npusim's HCCL types: the names and values of CANN's hccl_types.h, so
 * that a program written against CANN builds against npusim unchanged.
 * Only what npusim's collectives use is here.
 */
#ifndef NPUSIM_HCCL_TYPES_H
#define NPUSIM_HCCL_TYPES_H

#include <stdint.h>

typedef enum {
	HCCL_SUCCESS = 0,
	HCCL_E_PARA = 1,
	HCCL_E_PTR = 2,
	HCCL_E_MEMORY = 3,
	HCCL_E_INTERNAL = 4,
	HCCL_E_NOT_SUPPORT = 5,
	HCCL_E_NOT_FOUND = 6,
	HCCL_E_UNAVAIL = 7,
	HCCL_E_SYSCALL = 8,
	HCCL_E_TIMEOUT = 9,
	HCCL_E_OPEN_FILE_FAILURE = 10,
	HCCL_E_RUNTIME = 15,
} HcclResult;

typedef void *HcclComm;

typedef enum {
	HCCL_REDUCE_SUM = 0,
	HCCL_REDUCE_PROD = 1,
	HCCL_REDUCE_MAX = 2,
	HCCL_REDUCE_MIN = 3,
	HCCL_REDUCE_RESERVED
} HcclReduceOp;

typedef enum {
	HCCL_DATA_TYPE_INT8 = 0,
	HCCL_DATA_TYPE_INT16 = 1,
	HCCL_DATA_TYPE_INT32 = 2,
	HCCL_DATA_TYPE_FP16 = 3,
	HCCL_DATA_TYPE_FP32 = 4,
	HCCL_DATA_TYPE_INT64 = 5,
	HCCL_DATA_TYPE_UINT64 = 6,
	HCCL_DATA_TYPE_UINT8 = 7,
	HCCL_DATA_TYPE_UINT16 = 8,
	HCCL_DATA_TYPE_UINT32 = 9,
	HCCL_DATA_TYPE_FP64 = 10,
	HCCL_DATA_TYPE_BFP16 = 11,
	HCCL_DATA_TYPE_RESERVED
} HcclDataType;

#define HCCL_ROOT_INFO_BYTES	4108

/* Opaque to the application: it only carries it from rank 0 to the rest. */
typedef struct HcclRootInfoDef {
	char internal[HCCL_ROOT_INFO_BYTES];
} HcclRootInfo;

#endif
