/* SPDX-License-Identifier: MIT */
/*
 * npusim's collective library, libhccl.so: CANN's HCCL entry points with
 * CANN's names and argument order, for ranks that are processes of one
 * machine.  A collective is a device task on the caller's stream that
 * ends when every rank's task of the same collective has reached it, so
 * a rank that comes late shows as wait time in the others' tasks.
 *
 * Limits: every rank must call the same collectives in the same order
 * with the same count, type and op; what one rank puts in is at most
 * HCCL_SIM_MAX_BYTES.  A rank waits HCCL_CONNECT_TIMEOUT seconds for the
 * others at init and HCCL_EXEC_TIMEOUT seconds at each collective (CANN's
 * variables; 120 each by default, 1 to 3600), then fails with
 * HCCL_E_TIMEOUT, or ends the collective's task with its output unwritten
 * (HcclGetCommAsyncError says so); the communicator is then broken for every rank.
 * A rank that dies or destroys its communicator while the others wait for
 * it fails their collective at once, the same way.
 * FP16 and BFP16 move but do not reduce (HCCL_E_NOT_SUPPORT).
 */
#ifndef NPUSIM_HCCL_H
#define NPUSIM_HCCL_H

#include <acl/acl.h>
#include <hccl/hccl_types.h>

#define HCCL_SIM_MAX_RANKS	64
#define HCCL_SIM_MAX_BYTES	(1u << 20)

/*
 * clusterInfo: a rank table file (JSON) that names every rank with a
 * "rank_id" key; the ranks given the same file form one communicator.
 */
HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank,
				   HcclComm *comm);
/* On rank 0; the application hands the result to the other ranks. */
HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);
HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo,
				uint32_t rank, HcclComm *comm);
HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count,
			 HcclDataType dataType, HcclReduceOp op, HcclComm comm,
			 aclrtStream stream);
HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType,
			 uint32_t root, HcclComm comm, aclrtStream stream);
HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount,
			 HcclDataType dataType, HcclComm comm,
			 aclrtStream stream);
HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
			     HcclDataType dataType, HcclReduceOp op,
			     HcclComm comm, aclrtStream stream);
/* HCCL_E_TIMEOUT once a collective of comm has given up waiting. */
HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError);
HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize);
HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank);
/* Waits (bounded) for the communicator's collectives still on a stream. */
HcclResult HcclCommDestroy(HcclComm comm);

#endif
