/* SPDX-License-Identifier: MIT */
/*
 * Probe packs: per accelerator runtime, which functions msprof probes, which
 * of their arguments it keeps and how to show them, the API layer each
 * belongs to, and the device nodes that carry the runtime's driver ioctls.
 * A function is probed in a library of its pack that a target maps, found
 * by the file's name as the pack's libraries start (so renamed copies,
 * libcudart-<hash>.so, and conda environments work), or in the target's
 * main program (a runtime linked in statically).
 */
#ifndef MSPROF_PROBE_PACKS_H
#define MSPROF_PROBE_PACKS_H

#include <stdbool.h>
#include <stddef.h>

/* Argument registers the kernel side keeps for every probed call. */
#define MSPROF_PROBE_ARGS 6

/* API layers; msprof's switches turn them on and off. */
enum msprof_api_layer {
	MSPROF_LAYER_ACL,		/* --ascendcl: acl* (CANN, npusim) */
	MSPROF_LAYER_RUNTIME,		/* --runtime-api: rt* below acl */
	MSPROF_LAYER_HCCL,		/* --hccl: Hccl* collectives */
	MSPROF_LAYER_CUDA_RUNTIME,	/* --ascendcl: cuda* (libcudart) */
	MSPROF_LAYER_CUDA_DRIVER,	/* --runtime-api: cu* (libcuda) */
	MSPROF_LAYER_CUSTOM,		/* --uprobe=<lib>:<func> */
	MSPROF_LAYER_MSTX,		/* --msproftx: mstx* user marks (include/msprof/mstx.h) */
	MSPROF_LAYER_OSRT,		/* --host-sys=osrt: libc's pthread calls (include/msprof/osrt.h) */
	MSPROF_LAYER_MAX,
};

/* How a kept argument is shown. */
enum msprof_arg_kind {
	MSPROF_ARG_SKIP,	/* not kept */
	MSPROF_ARG_UINT,	/* a size, a count, an enum value */
	MSPROF_ARG_INT,		/* a signed value (device ids) */
	MSPROF_ARG_HEX,		/* a pointer or a handle (streams, events) */
};

struct msprof_probe_arg {
	const char *name;
	enum msprof_arg_kind kind;
};

/*
 * What a function is to a task queue: a runtime that hands its work from
 * the calling thread to a worker of its own (torch_npu's TASK_QUEUE_ENABLE)
 * launches from a thread with no Python frames; the export gives each call
 * made inside a dequeue the Python stack of its item's enqueue
 * (docs/probes.md).
 */
enum msprof_probe_role {
	MSPROF_ROLE_NONE,
	MSPROF_ROLE_ENQUEUE,	/* on the caller's thread: an item joins the queue */
	MSPROF_ROLE_DEQUEUE,	/* on the worker: the calls nested in it are an item's */
};

/* What a queue function's key argument says, so how the two are paired. */
enum msprof_queue_key {
	/*
	 * The item itself (npusim's sequence number): a dequeue is its key's
	 * latest enqueue that started before it.
	 */
	MSPROF_QUEUE_KEY_ITEM,
	/*
	 * Only the queue (torch_npu's Repository): items leave a queue in the
	 * order they joined it, so the n-th dequeue is an n-th enqueue.
	 */
	MSPROF_QUEUE_KEY_FIFO,
};

struct msprof_probe_func {
	const char *name;
	struct msprof_probe_arg args[MSPROF_PROBE_ARGS];	/* by position */
	enum msprof_probe_role role;
	enum msprof_queue_key key_kind;	/* with a role: what args[key] is */
	unsigned int key;		/* with a role: the argument's position */
	/*
	 * What a function of the mstx or osrt layer does, which its probe's
	 * cookie carries (enum msprof_mstx_kind, enum msprof_osrt_kind);
	 * 0: none.
	 */
	unsigned int kind;
};

struct msprof_probe_pack {
	const char *name;		/* "npusim", "cann-acl", "cudart", ... */
	/*
	 * The runtime's libraries, separated by blanks: a task that maps a
	 * file whose name starts like one ("libcudart" for
	 * libcudart-<hash>.so too) has the pack's functions looked up in that
	 * file, gets the pack's device nodes filtered in, and a preloaded
	 * agent serves it.
	 */
	const char *libraries;
	enum msprof_api_layer layer;
	const struct msprof_probe_func *funcs;
	size_t nfuncs;
	/*
	 * Driver device nodes as glob patterns, NULL-terminated; a node named
	 * by device_env in the task's environment takes their place.
	 */
	const char *const *devices;
	const char *device_env;
};

/*
 * The osrt layer's pack is a system library's (libc): no runtime, so a
 * process that maps it is no AI task for a preloaded agent to serve; and
 * its names are whole stems ("libc" is libc.so.6 and libc-2.31.so, never
 * libcudart.so).
 */
static inline bool msprof_probe_pack_is_system(const struct msprof_probe_pack *pack)
{
	return pack->layer == MSPROF_LAYER_OSRT;
}

extern const struct msprof_probe_pack msprof_probe_packs[];
extern const size_t msprof_nr_probe_packs;

/*
 * Whether path (a mapped file, a loaded library) is one of the pack's
 * libraries: its last component starts like one of pack->libraries up to
 * that one's first '.'.
 */
bool msprof_probe_pack_is_library(const struct msprof_probe_pack *pack,
				  const char *path);

/*
 * Whether path is a library of a runtime (of a pack that is no system
 * library's): what makes a preloaded agent serve a process.
 */
bool msprof_probe_pack_is_runtime(const char *path);

/*
 * What a function of that layer does (its kind: enum msprof_mstx_kind
 * for MSPROF_LAYER_MSTX, enum msprof_osrt_kind for MSPROF_LAYER_OSRT), by
 * its name; 0 for a name the layer's packs do not have.
 */
unsigned int msprof_probe_kind(const char *name, unsigned int layer);

/*
 * The queue function of that name and layer (a role other than none), as
 * the packs have it; NULL if none.  The export looks a recorded API up by
 * the name and layer its name record gives.
 */
const struct msprof_probe_func *msprof_probe_queue_func(const char *name,
							unsigned int layer);

#endif
