// SPDX-License-Identifier: MIT
/* msprof's names for what msprof-ebpf records. */

#include <string.h>

#include "msprof/probe_packs.h"
#include "naming.h"

const struct layer_naming *naming_layer(uint32_t layer)
{
	static const struct layer_naming names[] = {
		[MSPROF_LAYER_ACL] = { "AscendCL@", "acl", 20000 },
		[MSPROF_LAYER_RUNTIME] = { "Runtime@", "runtime", 5000 },
		/* Hccl* calls are acl-level in CANN's records (HOST_HCCL). */
		[MSPROF_LAYER_HCCL] = { "AscendCL@", "acl", 20000 },
		[MSPROF_LAYER_CUDA_RUNTIME] = { "CUDA@", "cuda", 20000 },
		[MSPROF_LAYER_CUDA_DRIVER] = { "CUDADriver@", "cuda_driver", 5000 },
		[MSPROF_LAYER_CUSTOM] = { "Api@", "api", 20000 },
		/* Shown as msprof shows msproftx data, never as API slices. */
		[MSPROF_LAYER_MSTX] = { "MsTx@", "msproftx", 20500 },
		/* Shown as the OS Runtime API track's calls, never as API slices. */
		[MSPROF_LAYER_OSRT] = { "OSRT@", "osrt", 20000 },
	};
	static const struct layer_naming unknown = { "Api@", "api", 20000 };

	return layer < MSPROF_LAYER_MAX ? &names[layer] : &unknown;
}

const char *naming_devtask_type(const struct profdata *p, const struct devtask *t)
{
	static const char *const names[] = {
		[DT_AI_CORE] = "AI_CORE", [DT_AI_VECTOR_CORE] = "AI_VECTOR_CORE",
		[DT_AI_CPU] = "AI_CPU", [DT_MIX_AIC] = "MIX_AIC",
		[DT_MIX_AIV] = "MIX_AIV", [DT_KERNEL] = "KERNEL",
		[DT_MEMCPY_ASYNC] = "MEMCPY_ASYNC", [DT_MEMSET] = "MEMSET",
	};
	const struct devop *op = profdata_task_op(p, t);

	if (op->type < sizeof(names) / sizeof(names[0]) && names[op->type])
		return names[op->type];
	/* A collective's task is its runtime task's (NOTIFY_WAIT, ...). */
	if (op->type == DT_HCCL && op->rt_type == NO_STR)
		return "HCCL";
	/* DT_OTHER, DT_UNKNOWN: the runtime's or the SQE's name. */
	return op->rt_type != NO_STR ? strtab_str(&p->names, op->rt_type) : "N/A";
}

const char *naming_devtask_name(const struct profdata *p, const struct devtask *t)
{
	const struct devop *op = profdata_task_op(p, t);

	/* msprof names a collective's tasks as their runtime tasks. */
	if (op->type == DT_HCCL && op->rt_type != NO_STR)
		return strtab_str(&p->names, op->rt_type);
	return strtab_str(&p->names, op->name);
}

const char *naming_op_name(const struct profdata *p, const struct devtask *t)
{
	return strtab_str(&p->names, profdata_task_op(p, t)->name);
}

const char *naming_str(const struct profdata *p, uint32_t id)
{
	return id != NO_STR ? strtab_str(&p->names, id) : "N/A";
}

/*
 * "static" for a kernel: a precompiled binary launched as it is, with its
 * block dim fixed at launch; no graph engine compiled it for the shapes it
 * met, which is what msprof's "dynamic" means.  Copies and sets are no ops.
 * (msprof-analyze's advisor takes a window without one static op for a
 * dynamic-shape one, and then skips its block-dim and bound checks.)
 */
static const char *kernel_state(const struct devop *op)
{
	return devop_is_copy(op) || op->type == DT_MEMSET ? "N/A" : "static";
}

const char *naming_op_state(const struct devop *op)
{
	if (op->state == OPSTATE_DYNAMIC)
		return "dynamic";
	if (op->state == OPSTATE_STATIC)
		return "static";
	return op->sqe == DEVOP_NO_SQE ? kernel_state(op) : "N/A";
}

uint32_t naming_op_type(const struct devop *op)
{
	return op->op_type != NO_STR ? op->op_type : op->name;
}
