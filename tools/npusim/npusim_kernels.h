/* SPDX-License-Identifier: MIT */
/*
 * Argument blocks of npusim's built-in kernels, as passed to
 * aclrtLaunchKernel(name, blockDim, &args, sizeof(args), stream).
 * The block is copied at launch; the buffers it points to are read and
 * written later, on the device's worker thread, so they must stay valid
 * until the stream is synchronized.  Every pointer must be non-NULL.
 */
#ifndef NPUSIM_KERNELS_H
#define NPUSIM_KERNELS_H

#include <stdint.h>

/* "vector_add": c[i] = a[i] + b[i] for i < n. */
struct npusim_vector_add_args {
	const float *a;
	const float *b;
	float *c;
	uint64_t n;
};

/* "matmul": c = a * b, row-major; a is m x k, b is k x n, c is m x n. */
struct npusim_matmul_args {
	const float *a;
	const float *b;
	float *c;
	uint32_t m;
	uint32_t n;
	uint32_t k;
	uint32_t pad;	/* keeps the size the same on every ABI; ignored */
};

/* "relu": y[i] = max(x[i], 0) for i < n; x may equal y. */
struct npusim_relu_args {
	const float *x;
	float *y;
	uint64_t n;
};

#endif
