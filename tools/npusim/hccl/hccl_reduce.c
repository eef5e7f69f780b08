// SPDX-License-Identifier: MIT
/*
 * The arithmetic of the reducing collectives, apart from any memory the
 * ranks share, so that it is tested alone.  Integers wrap as the
 * hardware's do: the sums and products are taken unsigned (a signed
 * overflow, or uint16_t promoted to int, would be undefined in C).
 */
#include "hccl_internal.h"

size_t hccl_type_size(HcclDataType t)
{
	static const unsigned char sizes[HCCL_DATA_TYPE_RESERVED] = {
		[HCCL_DATA_TYPE_INT8] = 1, [HCCL_DATA_TYPE_UINT8] = 1,
		[HCCL_DATA_TYPE_INT16] = 2, [HCCL_DATA_TYPE_UINT16] = 2,
		[HCCL_DATA_TYPE_FP16] = 2, [HCCL_DATA_TYPE_BFP16] = 2,
		[HCCL_DATA_TYPE_INT32] = 4, [HCCL_DATA_TYPE_UINT32] = 4,
		[HCCL_DATA_TYPE_FP32] = 4, [HCCL_DATA_TYPE_INT64] = 8,
		[HCCL_DATA_TYPE_UINT64] = 8, [HCCL_DATA_TYPE_FP64] = 8,
	};

	return (unsigned int)t < HCCL_DATA_TYPE_RESERVED ? sizes[t] : 0;
}

bool hccl_type_reduces(HcclDataType t)
{
	return hccl_type_size(t) && t != HCCL_DATA_TYPE_FP16 &&
	       t != HCCL_DATA_TYPE_BFP16;
}

/* T: the element; A: what its sum and product are taken in. */
#define REDUCE_CASE(tag, T, A)						\
	case tag: {							\
		T *d = dst;						\
		const T *s = src;					\
		for (i = 0; i < n; i++)					\
			d[i] = op == HCCL_REDUCE_SUM ? (T)((A)d[i] + (A)s[i]) : \
			       op == HCCL_REDUCE_PROD ? (T)((A)d[i] * (A)s[i]) : \
			       op == HCCL_REDUCE_MAX ? (s[i] > d[i] ? s[i] : d[i]) : \
			       (s[i] < d[i] ? s[i] : d[i]);		\
		break;							\
	}

void hccl_reduce(void *dst, const void *src, uint64_t n, HcclDataType type,
		 HcclReduceOp op)
{
	uint64_t i;

	switch (type) {
	REDUCE_CASE(HCCL_DATA_TYPE_INT8, int8_t, uint32_t)
	REDUCE_CASE(HCCL_DATA_TYPE_UINT8, uint8_t, uint32_t)
	REDUCE_CASE(HCCL_DATA_TYPE_INT16, int16_t, uint32_t)
	REDUCE_CASE(HCCL_DATA_TYPE_UINT16, uint16_t, uint32_t)
	REDUCE_CASE(HCCL_DATA_TYPE_INT32, int32_t, uint32_t)
	REDUCE_CASE(HCCL_DATA_TYPE_UINT32, uint32_t, uint32_t)
	REDUCE_CASE(HCCL_DATA_TYPE_INT64, int64_t, uint64_t)
	REDUCE_CASE(HCCL_DATA_TYPE_UINT64, uint64_t, uint64_t)
	REDUCE_CASE(HCCL_DATA_TYPE_FP32, float, float)
	REDUCE_CASE(HCCL_DATA_TYPE_FP64, double, double)
	default:
		break;
	}
}
