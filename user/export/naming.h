/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_NAMING_H
#define MSPROF_NAMING_H

#include <stdint.h>

#include "profdata.h"

/*
 * How msprof's files name an API layer: the prefix of its timeline slices
 * ("AscendCL@aclrtLaunchKernel"), the level api_statistic shows, and the
 * level number the timeline's args and the db's CANN_API.type carry
 * (ENUM_API_TYPE).  CUDA's layers take the numbers of the CANN layers
 * they stand where (application API 20000, runtime below it 5000) under
 * names of their own.
 */
struct layer_naming {
	const char *prefix;
	const char *level;
	uint32_t level_id;
};

const struct layer_naming *naming_layer(uint32_t layer);

/*
 * A device task's "Task Type": AI_CORE, AI_VECTOR_CORE, MEMCPY_ASYNC,
 * MEMSET, HCCL (a collective), KERNEL (CUDA), ...; of no host task, its
 * SQE type's name.
 */
const char *naming_devtask_type(const struct profdata *p, const struct devtask *t);
/* Its name: the op's, else the kernel's, else its type's. */
const char *naming_devtask_name(const struct profdata *p, const struct devtask *t);
/* Its op's name, a collective's task's too (its node launch's item). */
const char *naming_op_name(const struct profdata *p, const struct devtask *t);
/*
 * An op's OP State: the runtime's word (node_basic_info), else "static"
 * for a kernel of ours, "N/A" for a copy or a set.
 */
const char *naming_op_state(const struct devop *op);
/* Its OP Type: the runtime's op type (node_basic_info), else its name. */
uint32_t naming_op_type(const struct devop *op);
/* A string of the names table; "N/A" for NO_STR. */
const char *naming_str(const struct profdata *p, uint32_t id);

#endif
