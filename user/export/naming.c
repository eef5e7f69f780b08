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
		[MSPROF_LAYER_HCCL] = { "Communication@", "communication", 5500 },
		[MSPROF_LAYER_CUDA_RUNTIME] = { "CUDA@", "cuda", 20000 },
		[MSPROF_LAYER_CUDA_DRIVER] = { "CUDADriver@", "cuda_driver", 5000 },
		[MSPROF_LAYER_CUSTOM] = { "Api@", "api", 20000 },
	};
	static const struct layer_naming unknown = { "Api@", "api", 20000 };

	return layer < MSPROF_LAYER_MAX ? &names[layer] : &unknown;
}

static int launched_by_cuda(const struct profdata *p, const struct devtask *t)
{
	const struct profcall *c = profdata_call(p, t->conn);
	const struct api_desc *d = c ? profdata_desc(p, c->api_id) : NULL;

	return d && (d->layer == MSPROF_LAYER_CUDA_RUNTIME ||
		     d->layer == MSPROF_LAYER_CUDA_DRIVER);
}

const char *naming_devtask_type(const struct profdata *p, const struct devtask *t)
{
	const char *name = strtab_str(&p->names, t->name);

	if (!strncmp(name, "MEMCPY", 6))
		return "MEMCPY_ASYNC";
	if (!strncmp(name, "MEMSET", 6))
		return "MEMSET";
	/* A collective's task, as npusim's libhccl names it after CANN's ops. */
	if (!strncmp(name, "hcom_", 5))
		return "HCCL";
	return launched_by_cuda(p, t) ? "KERNEL" : "AI_CORE";
}
