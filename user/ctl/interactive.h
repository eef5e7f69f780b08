/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_INTERACTIVE_H
#define MSPROF_INTERACTIVE_H

#include <sys/types.h>

#include "session.h"

/*
 * The (msprof) prompt: reads start/stop/quit from stdin, and from ctl_fd
 * (--control's FIFO; -1: none) too, until quit, end of stdin (with no
 * ctl_fd), a signal in sigfd other than SIGINT (which is answered as msprof
 * answers it), or every target gone; child (launch mode, else
 * 0) is reaped when it exits.  Leaves after idle_s seconds without a
 * window running (counted from entry or the last stop).  Returns 0 or the
 * first failure.
 */
int interactive_run(struct session *s, int sigfd, pid_t child,
		    unsigned int idle_s, int ctl_fd);

#endif
