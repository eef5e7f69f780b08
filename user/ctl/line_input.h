/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_LINE_INPUT_H
#define MSPROF_LINE_INPUT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Commands from stdin, one line at a time, without blocking the event
 * loop: plain reads from a pipe or file; line editing and history (libedit)
 * on a terminal.
 */
struct line_input;

int line_input_open(struct line_input **out, const char *prompt);
/* The same from fd, never a terminal; prompt NULL: none shown. */
int line_input_open_fd(struct line_input **out, int fd, const char *prompt);
void line_input_close(struct line_input *in);
/* Shows the prompt for the next line. */
void line_input_prompt(struct line_input *in);
/* The input is readable: take what is there.  Never blocks. */
void line_input_feed(struct line_input *in);
/*
 * 1 with the next whole line in line, 0 if none yet, -1 at end of input,
 * LINE_INPUT_TOO_LONG for a line of len bytes or more (dropped, to its
 * newline).
 */
#define LINE_INPUT_TOO_LONG 2
int line_input_next(struct line_input *in, char *line, size_t len);

#endif
