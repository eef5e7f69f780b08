// SPDX-License-Identifier: MIT
/*
 * The built-in kernels.  They do real arithmetic on the worker thread so
 * that device task durations and CPU load look like work, not like sleeps.
 */
#include <string.h>

#include <msprof/cann_raw.h>

#include "npusim_internal.h"
#include "npusim_kernels.h"

/* GE's numbers for what the sample's tensors are: ND float32 (§2.8). */
#define GE_FORMAT_ND	2
#define GE_DT_FLOAT	0

/* Tensor i of ti: an input (0) or output (1) of the dims given. */
static void tensor(struct cann_tensor_info *ti, uint32_t io, uint64_t d0,
		   uint64_t d1)
{
	struct cann_tensor *t = &ti->tensor[ti->count++];

	t->tensor_type = io;
	t->format = GE_FORMAT_ND;
	t->data_type = GE_DT_FLOAT;
	/* Shapes are u32 in the record: a bigger one is cut, never wrapped. */
	t->shape[0] = d0 > UINT32_MAX ? UINT32_MAX : (uint32_t)d0;
	t->shape[1] = d1 > UINT32_MAX ? UINT32_MAX : (uint32_t)d1;
}

static bool vector_add_valid(const void *args)
{
	const struct npusim_vector_add_args *p = args;

	return p->a && p->b && p->c;
}

static void vector_add_run(const void *args)
{
	const struct npusim_vector_add_args *p = args;
	uint64_t i;

	for (i = 0; i < p->n; i++)
		p->c[i] = p->a[i] + p->b[i];
}

static void vector_add_shapes(const void *args, struct cann_tensor_info *ti)
{
	const struct npusim_vector_add_args *p = args;

	tensor(ti, 0, p->n, 0);
	tensor(ti, 0, p->n, 0);
	tensor(ti, 1, p->n, 0);
}

static bool matmul_valid(const void *args)
{
	const struct npusim_matmul_args *p = args;

	return p->a && p->b && p->c;
}

/* i-p-j order walks b and c by rows, which keeps the inner loop in cache. */
static void matmul_run(const void *args)
{
	const struct npusim_matmul_args *p = args;
	size_t i, j, q;

	for (i = 0; i < p->m; i++) {
		float *row = p->c + i * p->n;

		for (j = 0; j < p->n; j++)
			row[j] = 0.0f;
		for (q = 0; q < p->k; q++) {
			float aiq = p->a[i * p->k + q];
			const float *brow = p->b + q * p->n;

			for (j = 0; j < p->n; j++)
				row[j] += aiq * brow[j];
		}
	}
}

static void matmul_shapes(const void *args, struct cann_tensor_info *ti)
{
	const struct npusim_matmul_args *p = args;

	tensor(ti, 0, p->m, p->k);
	tensor(ti, 0, p->k, p->n);
	tensor(ti, 1, p->m, p->n);
}

static bool relu_valid(const void *args)
{
	const struct npusim_relu_args *p = args;

	return p->x && p->y;
}

static void relu_run(const void *args)
{
	const struct npusim_relu_args *p = args;
	uint64_t i;

	for (i = 0; i < p->n; i++)
		p->y[i] = p->x[i] > 0.0f ? p->x[i] : 0.0f;
}

static void relu_shapes(const void *args, struct cann_tensor_info *ti)
{
	const struct npusim_relu_args *p = args;

	tensor(ti, 0, p->n, 0);
	tensor(ti, 1, p->n, 0);
}

/* memmove: overlapping buffers are the caller's bug, not a crash. */
static void copy_run(const void *args)
{
	const struct npusim_copy_args *p = args;

	memmove(p->dst, p->src, p->count);
}

/* No .valid: aclrtMemcpyAsync checks its own arguments. */
const struct npusim_kernel npusim_copy_kernel = {
	.name = "MEMCPY_ASYNC",
	.kind = NPUSIM_TASK_MEMCPY,
	.args_size = sizeof(struct npusim_copy_args),
	.run = copy_run,
};

static void host_run(const void *args)
{
	const struct npusim_host_args *p = args;

	p->run(p->arg);
}

/* Named per task by its submitter; npusimLaunchHostTask checks its own. */
const struct npusim_kernel npusim_host_kernel = {
	.name = "HOST_TASK",
	.kind = NPUSIM_TASK_HOST,
	.args_size = sizeof(struct npusim_host_args),
	.run = host_run,
};

static const struct npusim_kernel kernels[] = {
	{
		.name = "vector_add",
		.kind = NPUSIM_TASK_AI_VECTOR,
		.op_type = "Add",
		.args_size = sizeof(struct npusim_vector_add_args),
		.valid = vector_add_valid,
		.run = vector_add_run,
		.shapes = vector_add_shapes,
	},
	{
		.name = "matmul",
		.kind = NPUSIM_TASK_AI_CORE,
		.op_type = "MatMul",
		.args_size = sizeof(struct npusim_matmul_args),
		.valid = matmul_valid,
		.run = matmul_run,
		.shapes = matmul_shapes,
	},
	{
		.name = "relu",
		.kind = NPUSIM_TASK_AI_VECTOR,
		.op_type = "Relu",
		.args_size = sizeof(struct npusim_relu_args),
		.valid = relu_valid,
		.run = relu_run,
		.shapes = relu_shapes,
	},
};

const struct npusim_kernel *npusim_kernel_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++)
		if (!strcmp(kernels[i].name, name))
			return &kernels[i];
	return NULL;
}
