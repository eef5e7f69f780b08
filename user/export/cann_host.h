/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_CANN_HOST_H
#define MSPROF_CANN_HOST_H

#include "cann.h"

/* The host half being loaded: the tasks from p->tasks[from] on. */
struct host_load {
	struct profdata *p;
	struct cann *c;
	size_t from;
	uint32_t *order;	/* the tasks by (thread, submit time) */
	uint32_t *node;		/* by place in order: its node API's number; 0 none */
	size_t n;
};

bool cann_head_ok(const struct cann_rec_head *h, const struct cann_src *s);
size_t cann_first_task(const struct host_load *h, uint32_t tid, uint64_t ns);
/* The node launch APIs' op names onto their tasks. */
int cann_bind_apis(struct host_load *h);
/* node_basic_info, tensor_info, memcpy_info, hccl_info onto their tasks. */
int cann_bind_records(struct host_load *h);

#endif
