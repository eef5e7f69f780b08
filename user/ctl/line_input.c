// SPDX-License-Identifier: MIT
/* Reading commands for the prompt, from a pipe or from a person. */
#include <editline/readline.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "line_input.h"

struct line_input {
	const char *prompt;	/* NULL: none shown */
	int fd;
	bool tty;
	bool eof;
	bool skipping;		/* the rest of a line too long is dropped */
	char buf[4096];		/* a pipe's bytes not yet split into lines */
	size_t len;
};

/*
 * libedit's callback interface hands a finished line to a function without
 * a context argument: this slot is where it waits until the event loop
 * takes it.  Only the one terminal session of a process uses it.
 */
static struct {
	char *line;
	bool ready;
} edited;

static void on_edited_line(char *line)
{
	edited.line = line;
	edited.ready = true;
	/* Reinstalled with the next prompt, so output between stays clean. */
	rl_callback_handler_remove();
}

int line_input_open_fd(struct line_input **out, int fd, const char *prompt)
{
	struct line_input *in = calloc(1, sizeof(*in));

	if (!in)
		return -ENOMEM;
	in->prompt = prompt;
	in->fd = fd;
	in->tty = prompt && fd == STDIN_FILENO && isatty(STDIN_FILENO) &&
		  isatty(STDOUT_FILENO);
	*out = in;
	return 0;
}

int line_input_open(struct line_input **out, const char *prompt)
{
	return line_input_open_fd(out, STDIN_FILENO, prompt);
}

void line_input_close(struct line_input *in)
{
	if (!in)
		return;
	if (in->tty && !edited.ready)
		rl_callback_handler_remove();
	free(edited.line);
	edited.line = NULL;
	edited.ready = false;
	free(in);
}

void line_input_prompt(struct line_input *in)
{
	if (in->tty) {
		rl_callback_handler_install(in->prompt, on_edited_line);
		return;
	}
	if (!in->prompt)
		return;
	fputs(in->prompt, stdout);
	fflush(stdout);
}

void line_input_feed(struct line_input *in)
{
	ssize_t n;

	if (in->tty) {
		if (!edited.ready)
			rl_callback_read_char();
		return;
	}
	/* A full buffer reads nothing, which is no end of input. */
	if (in->len == sizeof(in->buf))
		return;
	n = read(in->fd, in->buf + in->len, sizeof(in->buf) - in->len);
	if (n > 0)
		in->len += (size_t)n;
	else if (n == 0 || (errno != EINTR && errno != EAGAIN))
		in->eof = true;
}

static int next_edited(char *line, size_t len)
{
	if (!edited.ready)
		return 0;
	edited.ready = false;
	if (!edited.line)
		return -1;	/* Ctrl-D */
	if (*edited.line)
		add_history(edited.line);
	snprintf(line, len, "%s", edited.line);
	free(edited.line);
	edited.line = NULL;
	return 1;
}

int line_input_next(struct line_input *in, char *line, size_t len)
{
	bool was_skipping, too_long;
	char *nl;
	size_t n;

	if (in->tty)
		return next_edited(line, len);
	for (;;) {
		nl = memchr(in->buf, '\n', in->len);
		/* A full buffer without a newline is taken as one line. */
		if (!nl && in->len < sizeof(in->buf) && !(in->eof && in->len))
			return in->eof ? -1 : 0;
		n = nl ? (size_t)(nl - in->buf) : in->len;
		was_skipping = in->skipping;
		too_long = n >= len;
		if (!was_skipping && !too_long)
			snprintf(line, len, "%.*s", (int)n, in->buf);
		in->skipping = !nl && (was_skipping || too_long);
		n += nl ? 1 : 0;
		memmove(in->buf, in->buf + n, in->len - n);
		in->len -= n;
		/* The tail of a line already said to be too long: said once. */
		if (!was_skipping)
			return too_long ? LINE_INPUT_TOO_LONG : 1;
	}
}
