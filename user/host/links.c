// SPDX-License-Identifier: MIT
/* The links a window attached, kept until its detach. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "common/growarr.h"
#include "links.h"

int link_set_keep(struct link_set *s, struct bpf_link *link)
{
	struct bpf_link **slot;

	if (!link)
		return -errno;
	slot = growarr_push((void **)&s->links, &s->nlinks, &s->cap,
			    sizeof(*s->links));
	if (!slot) {
		bpf_link__destroy(link);
		return -ENOMEM;
	}
	*slot = link;
	return 0;
}

int link_set_keep_fd(struct link_set *s, int fd)
{
	int *slot;

	if (fd < 0)
		return fd;
	slot = growarr_push((void **)&s->fds, &s->nfds, &s->fd_cap,
			    sizeof(*s->fds));
	if (!slot) {
		close(fd);
		return -ENOMEM;
	}
	*slot = fd;
	return 0;
}

void link_set_free(struct link_set *s)
{
	free(s->links);
	free(s->fds);
}
