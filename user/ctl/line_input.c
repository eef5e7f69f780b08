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
	const char *prompt;
	bool tty;
	bool eof;
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

int line_input_open(struct line_input **out, const char *prompt)
{
	struct line_input *in = calloc(1, sizeof(*in));

	if (!in)
		return -ENOMEM;
	in->prompt = prompt;
	in->tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	*out = in;
	return 0;
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
	n = read(STDIN_FILENO, in->buf + in->len, sizeof(in->buf) - in->len);
	if (n > 0)
		in->len += (size_t)n;
	else if (n == 0 || errno != EINTR)
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
	char *nl;
	size_t n;

	if (in->tty)
		return next_edited(line, len);
	nl = memchr(in->buf, '\n', in->len);
	/* A full buffer without a newline is taken as one line. */
	if (!nl && in->len < sizeof(in->buf) && !(in->eof && in->len))
		return in->eof ? -1 : 0;
	n = nl ? (size_t)(nl - in->buf) : in->len;
	snprintf(line, len, "%.*s", (int)n, in->buf);
	n += nl ? 1 : 0;
	memmove(in->buf, in->buf + n, in->len - n);
	in->len -= n;
	return 1;
}
