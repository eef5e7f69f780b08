/* SPDX-License-Identifier: MIT */
/* The links a window attached, kept until its detach. */
#ifndef MSPROF_LINKS_H
#define MSPROF_LINKS_H

#include <stddef.h>

struct bpf_link;

struct link_set {
	struct bpf_link **links;	/* perf-event uprobes, tracepoints */
	size_t nlinks;
	size_t cap;
	int *fds;			/* our uprobe_multi links */
	size_t nfds;
	size_t fd_cap;
};

/* Keeps link (NULL: errno says why not); on failure it is gone. */
int link_set_keep(struct link_set *s, struct bpf_link *link);
/* Keeps a link's fd (negative: the error); on failure it is closed. */
int link_set_keep_fd(struct link_set *s, int fd);
/* Frees the arrays only: the links were detached or handed over. */
void link_set_free(struct link_set *s);

#endif
