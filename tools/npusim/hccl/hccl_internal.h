/* SPDX-License-Identifier: MIT */
/*
 * What libhccl's files share.  Only the Hccl* API leaves the library.
 */
#ifndef HCCL_INTERNAL_H
#define HCCL_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <hccl/hccl.h>

#pragma GCC visibility push(hidden)

/* --- the arithmetic (hccl_reduce.c) ------------------------------------- */

/* Bytes an element of t takes; 0 for a type HCCL does not have. */
size_t hccl_type_size(HcclDataType t);
/* Whether t can be summed, multiplied and compared here. */
bool hccl_type_reduces(HcclDataType t);
/* dst[i] = dst[i] op src[i] for n elements of a type that reduces. */
void hccl_reduce(void *dst, const void *src, uint64_t n, HcclDataType type,
		 HcclReduceOp op);

/* --- the rendezvous segment (hccl_seg.c) -------------------------------- */

#define HCCL_KEY_BYTES	16

/*
 * A communicator's shared memory, one per job: rank 0 makes it under a
 * name derived from the key, the others map it.  Every field is written
 * with atomics: the ranks share nothing else.  Aligned so that the slots
 * after it are aligned for any element type.
 */
struct __attribute__((aligned(64))) hccl_seg_hdr {
	_Atomic uint32_t ready;		/* HCCL_SEG_READY once set up */
	uint32_t nranks;
	_Atomic uint32_t joined;	/* ranks that mapped it */
	_Atomic uint32_t left;		/* ranks that unmapped it */
	_Atomic uint32_t broken;	/* a rank gave up: everyone fails */
	_Atomic uint32_t count;		/* the barrier: arrivals */
	_Atomic uint32_t gen;		/* the barrier: its futex word */
	_Atomic uint8_t attached[HCCL_SIM_MAX_RANKS];
};

struct hccl_seg {
	struct hccl_seg_hdr *hdr;
	unsigned char *slots;		/* nranks x HCCL_SIM_MAX_BYTES */
	size_t size;
	uint32_t rank;
	uint32_t nranks;
	int fd;
	bool attached;			/* holds its rank: leaving is news */
	bool named;			/* the name may still be there */
	dev_t dev;
	ino_t ino;
	char path[80];
};

static inline unsigned char *hccl_seg_slot(const struct hccl_seg *s,
					   uint32_t rank)
{
	return s->slots + (size_t)rank * HCCL_SIM_MAX_BYTES;
}

/* CLOCK_MONOTONIC, ns. */
uint64_t hccl_now_ns(void);
/* now + the seconds in variable env (1 to 3600, else 120). */
uint64_t hccl_deadline(const char *env);

/* 0 or a negative errno; -ETIMEDOUT when the other ranks never came. */
int hccl_seg_join(struct hccl_seg *s, const unsigned char key[HCCL_KEY_BYTES],
		  uint32_t nranks, uint32_t rank, uint64_t deadline);
/*
 * -ETIMEDOUT past deadline; -EPIPE once a rank gave up, left or died while
 * this barrier still waited for it.  Either breaks the segment for every rank.
 */
int hccl_seg_barrier(struct hccl_seg *s, uint64_t deadline);
void hccl_seg_leave(struct hccl_seg *s);

/* --- communicators (hccl_comm.c) ---------------------------------------- */

struct hccl_comm {
	struct hccl_comm *next;		/* the live ones, for handle checks */
	uint32_t rank;
	uint32_t nranks;
	struct hccl_seg seg;
	_Atomic uint32_t pending;	/* collectives on a stream */
	_Atomic uint32_t failed;	/* a collective gave up */
};

/* The comm behind h with pending raised, or NULL for a bad handle. */
struct hccl_comm *hccl_comm_hold(HcclComm h);
void hccl_comm_put(struct hccl_comm *c);

/* --- what HCCL reports to the profiling (hccl_prof.c) --------------------- */

#define HCCL_APIS(X)							\
	X(HcclGetRootInfo) X(HcclCommInitRootInfo)			\
	X(HcclCommInitClusterInfo) X(HcclCommDestroy) X(HcclGetRankId)	\
	X(HcclGetRankSize) X(HcclGetCommAsyncError) X(HcclAllReduce)	\
	X(HcclBroadcast) X(HcclAllGather) X(HcclReduceScatter)

#define HCCL_API_ENUM(name) HCCL_API_##name,
enum hccl_api { HCCL_APIS(HCCL_API_ENUM) HCCL_API_NONE };
#undef HCCL_API_ENUM

/* A reported call's begin on the host clock; 0 outside a window. */
uint64_t hccl_prof_begin(void);
/* The call that began at begin returns now: an acl-level API. */
void hccl_prof_acl(enum hccl_api api, uint64_t begin);

/* call, reported as api. */
#define HCCL_REPORTED(api, call) ({					\
	uint64_t begin_ = hccl_prof_begin();				\
	HcclResult ret_ = (call);					\
									\
	hccl_prof_acl(HCCL_API_##api, begin_);				\
	ret_;								\
})

/* One device task of a collective, as its hccl_info says it. */
struct hccl_task_info {
	const char *op_name;
	uint32_t rank;
	uint32_t nranks;
	const void *src;
	void *dst;
	uint64_t bytes;
	uint32_t reduce_op;
	uint32_t data_type;
};

/* The communication-level task that began at begin: hccl_info, master API. */
void hccl_prof_task(uint64_t begin, const struct hccl_task_info *ti);
/* The node-level op that began at begin: node_basic_info, launch API. */
void hccl_prof_op(uint64_t begin, const char *op_name, const char *op_type);

#pragma GCC visibility pop

#endif
