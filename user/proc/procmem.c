// SPDX-License-Identifier: MIT
/* A task's memory, read in msprof's reader (see procmem.h). */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "procmem.h"
#include "procread.h"

struct mem_req {
	int32_t pid;
	uint32_t n;
	struct procmem_range r[PROCMEM_MAX_RANGES];
};

/* The answer: n ok bytes, then the ranges' bytes. */
static int read_in_reader(const void *arg, int in_fd, char *out, size_t cap,
			  size_t *len, int *fd)
{
	const struct mem_req *q = arg;
	size_t at = q->n, i;
	struct iovec local, remote;
	ssize_t got;

	(void)in_fd;
	(void)fd;
	if (q->n > PROCMEM_MAX_RANGES || cap < q->n)
		return -EINVAL;
	for (i = 0; i < q->n; i++) {
		if (q->r[i].len > cap - at)
			return -EINVAL;
		local = (struct iovec){ out + at, q->r[i].len };
		remote = (struct iovec){ (void *)(uintptr_t)q->r[i].addr,
					 q->r[i].len };
		got = process_vm_readv(q->pid, &local, 1, &remote, 1, 0);
		out[i] = got == (ssize_t)q->r[i].len;
		if (!out[i])
			memset(out + at, 0, q->r[i].len);
		at += q->r[i].len;
	}
	*len = at;
	return 0;
}

int procmem_read(int pid, const struct procmem_range *r, size_t n,
		 void *out, size_t cap, uint8_t *ok)
{
	static struct mem_req q;
	static char buf[PROCMEM_MAX_RANGES + PROCMEM_MAX_BYTES];
	struct procread_call c = {
		.fn = read_in_reader, .arg = &q, .in_fd = -1, .out = buf,
	};
	size_t i, total = 0;
	int err;

	if (n > PROCMEM_MAX_RANGES)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (r[i].len > PROCMEM_MAX_RANGE)
			return -EINVAL;
		total += r[i].len;
	}
	if (total > cap || n + total > sizeof(buf))
		return -EINVAL;
	q.pid = pid;
	q.n = (uint32_t)n;
	memcpy(q.r, r, n * sizeof(*r));
	c.arg_len = offsetof(struct mem_req, r) + n * sizeof(*r);
	c.cap = n + total;
	err = procread_run(&c);
	if (err)
		return err;
	if (c.len != n + total)
		return -EPROTO;
	memcpy(ok, buf, n);
	memcpy(out, buf + n, total);
	return 0;
}
