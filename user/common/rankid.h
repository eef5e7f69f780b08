/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_RANKID_H
#define MSPROF_RANKID_H

/* The environment variables a task's rank is in, in the order looked at. */
#define RANKID_ENV_NAMES { "RANK_ID", "RANK" }

/*
 * A rank as the runtime takes RANK_ID: digits only, and an int's worth;
 * -1 for anything else.
 */
int rankid_parse(const char *val);

#endif
