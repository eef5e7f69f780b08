/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_KFEATURES_H
#define MSPROF_KFEATURES_H

#include <stdbool.h>
#include <stddef.h>

/* The oldest kernel msprof runs on. */
#define KFEATURES_MIN_MAJOR 5
#define KFEATURES_MIN_MINOR 10

/* What the running kernel offers beyond msprof's floor. */
struct kfeatures {
	char release[65];	/* uname -r */
	bool cookies;		/* BPF attach cookies (5.15) */
	bool uprobe_multi;	/* uprobe_multi links (6.6) */
};

/*
 * Fills kf.  -ENOTSUP when something msprof cannot do without is absent:
 * why then names it and the first kernel that has it.  -EPERM without the
 * privilege to load BPF programs.
 */
int kfeatures_probe(struct kfeatures *kf, char *why, size_t len);

/* Whether a kernel release string is at the floor or above it. */
bool kfeatures_release_ok(const char *release);

#endif
