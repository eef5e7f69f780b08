/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_PROFDATA_H
#define MSPROF_PROFDATA_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msprof/osrt.h"
#include "msprof/recfile.h"
#include "profmeta.h"
#include "pystack.h"
#include "strtab.h"

/* What a name record says of an API id. */
struct api_desc {
	char *name;		/* NULL: the id was never named */
	uint32_t layer;		/* enum msprof_api_layer */
	uint8_t kinds[MSPROF_PROBE_ARGS];	/* enum msprof_arg_kind */
	const char *args[MSPROF_PROBE_ARGS];	/* inside name's allocation */
	/* A task queue's enqueue or dequeue (its key kept), or NULL. */
	const struct msprof_probe_func *queue;
};

/*
 * An API call as the index keeps it: enough to find the call a device task
 * came from.  Its connection id is its place in profdata.calls, plus 1.
 */
struct profcall {
	uint64_t start_ns;
	uint64_t end_ns;
	uint32_t ns_tid;	/* as the task sees itself, as device records do */
	uint16_t api_id;
	uint16_t depth;
	uint32_t stack;		/* its Python stack's chain (pystack.h); 0: none */
	/*
	 * Run for a task queue's item (the dequeue and the calls in it): the
	 * connection id of the item's enqueue; 0: none (queue_match.h).
	 */
	uint32_t enqueue;
};

/* A call of a task queue's function, as read: to be found among the calls. */
struct queue_seen {
	struct profcall at;	/* its thread, start and depth */
	uint64_t key;		/* its key argument's value */
	const struct msprof_probe_func *func;
};

/*
 * What a device task is, from the runtime's own codes or, for CUPTI and
 * task_time.data, its name; named only at output (naming.c).
 */
enum devtask_type {
	DT_UNKNOWN,		/* no host task matched: named by its SQE type */
	DT_AI_CORE,
	DT_AI_VECTOR_CORE,
	DT_AI_CPU,
	DT_MIX_AIC,
	DT_MIX_AIV,
	DT_KERNEL,		/* CUDA's */
	DT_MEMCPY_ASYNC,
	DT_MEMSET,
	DT_HCCL,		/* a collective's task */
	DT_OTHER,		/* the runtime's type name (devop.rt_type) says it */
};

#define NO_STR	UINT32_MAX	/* a devop string that is not known: N/A */

enum devop_shape {
	SHAPE_IN, SHAPE_IN_TYPES, SHAPE_IN_FORMATS,
	SHAPE_OUT, SHAPE_OUT_TYPES, SHAPE_OUT_FORMATS, SHAPES,
};

/*
 * What a device task shares with the others of its op launch: a million
 * tasks have a few dozen of these, so each is kept once (profdata.ops)
 * and a task holds its number.  Strings are ids in profdata.names.
 */
struct devop {
	uint32_t name;		/* op name: node launch, else kernel, else type */
	uint32_t kernel;	/* the task's kernel name (task_time) */
	uint32_t op_type;	/* NO_STR: not known */
	uint32_t rt_type;	/* the runtime's task type name, or the SQE's */
	uint32_t shapes[SHAPES];	/* tensor_info's, rendered; NO_STR: N/A */
	uint32_t block_dim;
	uint16_t mix_ratio;	/* 0: not a mix op */
	uint8_t type;		/* enum devtask_type */
	uint8_t sqe;		/* SQE type; DEVOP_NO_SQE: not known */
	uint8_t ge_type;	/* enum cann_ge_task_type; DEVOP_NO_GE: no node info */
	uint8_t hf32;		/* 0 no, 1 yes, 2 not known */
	uint8_t state;		/* enum devop_state */
	/*
	 * The runtime's task type (task_track's code) as the enum, kept when
	 * a node makes the task a collective's (type DT_HCCL): what its
	 * copies are known by.  DT_UNKNOWN: no task_track.
	 */
	uint8_t rt_kind;
};

#define DEVOP_NO_SQE	0xff
#define DEVOP_NO_GE	0xff

enum devop_state { OPSTATE_NA, OPSTATE_DYNAMIC, OPSTATE_STATIC };

/* One device task, kept small: windows hold millions. */
struct devtask {
	uint64_t submit_ns;	/* the host's task_track, on our clock */
	uint64_t start_ns;
	uint64_t end_ns;
	uint32_t conn;		/* the launching call's connection id; 0: none seen */
	uint32_t host_tid;	/* the task's view */
	uint32_t stream;
	uint32_t task_id;
	uint32_t op;		/* in profdata.ops */
	uint16_t device;
	uint16_t batch;		/* the stream's flips before it */
};

/* A memcpy task's size and direction (memcpy_info), by task key. */
struct task_copy {
	uint64_t key;		/* devtask_key() */
	uint64_t bytes;
	uint32_t kind;		/* aclrtMemcpyKind */
};

/* What hccl_info said of a collective's task, by task key. */
struct task_hccl {
	uint64_t key;		/* devtask_key() */
	uint64_t bytes;
	uint64_t notify_id;
	double duration_est;
	uint64_t group_id;	/* the group name's hash id */
	uint32_t node;		/* its node launch's place among the API records; 0: none */
	uint32_t name;		/* its task name (item), in profdata.names */
	uint32_t group;		/* group name, in profdata.names */
	uint32_t plane;
	uint32_t local_rank, remote_rank, rank_size;
	uint32_t data_type, link_type, transport_type;
};

/* A task's identity as host and device records give it. */
static inline uint64_t devtask_key(const struct devtask *t)
{
	return (uint64_t)t->device << 48 | (uint64_t)(t->stream & 0xffff) << 32 |
	       (uint64_t)t->batch << 16 | (t->task_id & 0xffff);
}

struct cann;	/* a runtime's raw files, as cann_*.c read them */
struct mstx_set;	/* the user marks (mstx.h) */
struct hostsys_data;	/* host system files (hostsys.h) */
struct tstate_set;	/* the thread states (tstate.h) */
struct osrt_set;	/* the OS runtime calls (osrt.h) */

/*
 * A data file that could not be read whole, or a fault in one kept once
 * with its count: what (empty: err and stop say it) at stop.offset.
 */
struct profdata_problem {
	char file[NAME_MAX + 32];	/* relative to the PROF_ directory */
	int err;		/* as recfile_read_fd() or safe_open_beneath() */
	struct recfile_stop stop;
	char what[96];
	uint64_t count;
	bool kept;		/* shown all the same: nothing was dropped */
};

#define PROFDATA_MAX_PROBLEMS 32

/*
 * A PROF_ directory as the exporters read it: its metadata, an index of
 * its API calls and its device tasks in memory; host records themselves
 * are read again from the file each time they are walked, so a window of
 * millions of calls is never held whole.
 */
struct profdata {
	struct profmeta meta;
	uint64_t end_mono_ns;	/* the window's end, or its last record */
	/* Data files read only in part; nproblems may exceed what is kept. */
	struct profdata_problem problems[PROFDATA_MAX_PROBLEMS];
	unsigned int nproblems;
	unsigned int nkept;	/* of them, faults that dropped nothing */
	struct api_desc apis_desc[MSPROF_MAX_APIS];
	struct profcall *calls;	/* by ns_tid, then start, then depth */
	size_t ncalls;
	uint32_t *tids;		/* threads with host records (msprof's view), ascending */
	size_t ntids;
	struct devtask *tasks;	/* by device, then start */
	size_t ntasks;
	struct devop *ops;	/* by devtask.op */
	uint32_t nops, cap_ops;
	uint32_t *op_slots;	/* open addressing: op + 1, 0 empty */
	uint32_t nop_slots;
	struct keyhash_key op_key;
	struct strtab names;	/* device task, op and runtime names */
	struct task_copy *copies;	/* by key */
	size_t ncopies;
	struct task_hccl *hccls;	/* by key */
	size_t nhccls;
	struct cann *cann;	/* NULL: no runtime's raw files */
	struct mstx_set *mstx;	/* NULL: no user marks */
	struct hostsys_data *hostsys;	/* NULL: no host system files */
	struct tstate_set *tstate;	/* NULL: no thread states */
	struct osrt_set *osrt;	/* NULL: no OS runtime calls (--host-sys=osrt) */
	struct pystacks py;	/* the calls' Python stacks */
	struct queue_seen *queue;	/* task queue calls, in file order */
	size_t nqueue, cap_queue;
	int dirfd;		/* the PROF_ directory, for the walks */
	size_t cap_calls, cap_tids, cap_tasks;
};

/*
 * Reads the PROF_ directory open as dirfd (which stays the caller's).  A
 * data file that cannot be read whole is a problem kept in p, not an
 * error: what it held up to there is loaded.  A window without info.json
 * (a crash) or still "collecting" loads as incomplete.  -ENOENT: neither
 * info.json nor start_info (not a window); other errors concern the
 * metadata (profdata_strerror).  On error p holds nothing to free.
 */
int profdata_load_at(struct profdata *p, int dirfd);
/* The same for the directory at path (not followed if a link). */
int profdata_load(struct profdata *p, const char *dir);
/* What an error of profdata_load_at() means, for a message. */
void profdata_strerror(char *buf, size_t len, int err);
void profdata_free(struct profdata *p);

/*
 * profdata_load_at()'s steps (profdata_load.c), for it alone: our own
 * records read (on error p may hold some: profdata_free() it, unless
 * p->dirfd is -1), a time as the window's latest, the indexes built once
 * the runtime's tasks are in, and all but the runtime's part freed.
 */
int profdata_read_ours(struct profdata *p, int dirfd);
void profdata_latest(struct profdata *p, uint64_t ns);
int profdata_index(struct profdata *p);
void profdata_free_model(struct profdata *p);

/*
 * Keeps a fault of file at offset: the first of each (file, what) with a
 * count of them all.
 */
void profdata_problem(struct profdata *p, const char *file, uint64_t offset,
		      const char *what);
/*
 * A data file read in part (err as recfile_read_fd(), stop where) or not
 * at all (err as safe_open_beneath()).
 */
void profdata_unread(struct profdata *p, const char *file, int err,
		     const struct recfile_stop *stop);
/* The same for a fault whose record is exported all the same. */
void profdata_note(struct profdata *p, const char *file, uint64_t offset,
		   const char *what);
/* One line on a problem: "offset 12: what (3 times)". */
void profdata_problem_str(char *buf, size_t len, const struct profdata_problem *pb);

/* The number of op (interned); 0 or -ENOMEM. */
int profdata_op(struct profdata *p, const struct devop *op, uint32_t *id);
/*
 * Whether op is a copy (MEMCPY_ASYNC): a copy's, or a collective's task
 * the runtime submitted as one.
 */
static inline bool devop_is_copy(const struct devop *op)
{
	return op->type == DT_MEMCPY_ASYNC ||
	       (op->type == DT_HCCL && op->rt_kind == DT_MEMCPY_ASYNC);
}

static inline const struct devop *profdata_task_op(const struct profdata *p,
						   const struct devtask *t)
{
	return &p->ops[t->op];
}
/* A task_time.data task's type, as its name says (npusim's, CUPTI's). */
enum devtask_type profdata_type_of_name(const char *name, size_t len);
/* A devop of name, type and the rest not known; name is interned. */
int profdata_op_named(struct profdata *p, const char *name, size_t len,
		      enum devtask_type type, uint32_t block_dim, uint32_t *id);
/* Sorts p->tasks by cmp in place, with no copy of them (cmp's arg: NULL). */
int profdata_sort_tasks(struct profdata *p,
			int (*cmp)(const void *, const void *, void *));
/* The same for count tasks from from on. */
int profdata_sort_range(struct profdata *p, size_t from, size_t count,
			int (*cmp)(const void *, const void *, void *));
/* The side details of a task, or NULL. */
const struct task_copy *profdata_copy(const struct profdata *p,
				      const struct devtask *t);
const struct task_hccl *profdata_hccl(const struct profdata *p,
				      const struct devtask *t);

/* Sorts v and drops repeats; how many are left. */
size_t profdata_sort_unique(uint32_t *v, size_t n);
/* The description of an API id; NULL if it was never named. */
const struct api_desc *profdata_desc(const struct profdata *p, uint32_t api_id);
/*
 * The argument of call e named name in d, its API's description, in *v:
 * false if the API keeps none of that name (or d is NULL).
 */
bool profdata_arg(const struct api_desc *d, const struct msprof_api_event *e,
		  const char *name, uint64_t *v);
/* The calls' order (struct profcall): by ns_tid, then start, then depth. */
int profdata_by_tid_start(const void *a, const void *b);
/* The call of a connection id; NULL for 0 or one out of range. */
const struct profcall *profdata_call(const struct profdata *p, uint64_t conn);
/*
 * The connection id of the innermost API call on the thread the task knows
 * as tid whose span holds ns; 0 if none.
 */
uint64_t profdata_conn_at(const struct profdata *p, uint32_t tid, uint64_t ns);

/*
 * Walks the host records in file order, each loaded one handed to api (with
 * its connection id) or ioctl (payload_len 0: none kept); either may be
 * NULL.  A non-zero return of theirs ends the walk with it; reading stops
 * where the load found the file's end.
 */
typedef int (*profdata_api_fn)(const struct msprof_api_event *e, uint64_t conn,
			       void *ctx);
typedef int (*profdata_ioctl_fn)(const struct msprof_ioctl_payload_event *e,
				 void *ctx);
int profdata_each_host(const struct profdata *p, profdata_api_fn api,
		       profdata_ioctl_fn ioctl, void *ctx);
/* The same for the osrt records' calls (struct msprof_osrt_event). */
typedef int (*profdata_osrt_fn)(const struct msprof_osrt_event *e, void *ctx);
int profdata_each_osrt(const struct profdata *p, profdata_osrt_fn fn, void *ctx);

#endif
