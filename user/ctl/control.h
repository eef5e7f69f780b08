/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_CONTROL_H
#define MSPROF_CONTROL_H

#include <limits.h>
#include <sys/types.h>

/*
 * --control=<path>: a FIFO the prompt's commands also come from, one per
 * line, so that a launcher without a terminal (pdsh, srun) can drive
 * msprof.  Made by msprof, 0600, never taken over; removed at the end.
 */
struct control {
	int dir;		/* the directory it is in; -1: none */
	int fd;			/* read and write: writers come and go */
	dev_t dev;
	ino_t ino;
	char name[NAME_MAX + 1];
	char path[PATH_MAX];	/* as made, "%h" replaced: for messages */
};

/* The longest command line the control path takes, newline excluded. */
#define CONTROL_LINE_MAX 256

/*
 * Makes the FIFO at tmpl ("%h": this host's name up to its first dot, as
 * Slurm names nodes; "%%": "%") and opens it.  Refused, in one line on
 * stderr: anything already at the path, a directory on the way that a
 * user other than root or us owns or that others may write without the
 * sticky bit, or a FIFO that is not what we made once opened.
 */
int control_open(struct control *c, const char *tmpl);
/* Closes it and removes it, if the path still names what we made. */
void control_close(struct control *c);

#endif
