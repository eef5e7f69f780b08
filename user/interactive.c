// SPDX-License-Identifier: MIT
/* The interactive prompt and the event loop around it. */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "interactive.h"

/* Checks for exited targets this often while waiting for input. */
#define POLL_MS 500

struct line_reader {
	char buf[4096];
	size_t len;
	bool eof;
};

static void prompt(void)
{
	fputs("(msprof) ", stdout);
	fflush(stdout);
}

/* Returns 1 and the next whole line (without newline) or 0 if none yet. */
static int next_line(struct line_reader *r, char *line, size_t len)
{
	char *nl = memchr(r->buf, '\n', r->len);
	size_t n;

	if (!nl && !(r->eof && r->len) && r->len < sizeof(r->buf))
		return 0;
	n = nl ? (size_t)(nl - r->buf) : r->len;
	snprintf(line, len, "%.*s", (int)n, r->buf);
	n += nl ? 1 : 0;
	memmove(r->buf, r->buf + n, r->len - n);
	r->len -= n;
	return 1;
}

static void help(void)
{
	puts("commands:\n"
	     "  start   begin a collection window\n"
	     "  stop    end it and write its PROF_ directories\n"
	     "  status  state, window, events and losses so far\n"
	     "  quit    stop if needed and leave; the task keeps running\n"
	     "  help    this text");
}

enum verdict { GO_ON, LEAVE };

static enum verdict run_command(struct session *s, const char *cmd, int *err)
{
	char word[32] = "";

	if (sscanf(cmd, "%31s", word) != 1)
		return GO_ON;
	if (!strcmp(word, "start"))
		*err = session_start(s);
	else if (!strcmp(word, "stop"))
		*err = session_stop(s);
	else if (!strcmp(word, "quit") || !strcmp(word, "exit"))
		return LEAVE;
	else if (!strcmp(word, "status"))
		session_status(s);
	else if (!strcmp(word, "help"))
		help();
	else
		printf("msprof: unknown command '%s' (try help)\n", word);
	return GO_ON;
}

/* True once idle_s passed with no window running since since_ns. */
static bool idle_too_long(const struct session *s, uint64_t since_ns,
			  unsigned int idle_s)
{
	if (s->collecting)
		return false;
	return clock_ns(CLOCK_MONOTONIC) - since_ns >= idle_s * 1000000000ull;
}

int interactive_run(struct session *s, int sigfd, pid_t child,
		    unsigned int idle_s)
{
	uint64_t idle_since = clock_ns(CLOCK_MONOTONIC);
	struct pollfd fds[3] = {
		{ .fd = STDIN_FILENO, .events = POLLIN },
		{ .fd = sigfd, .events = POLLIN },
		{ .fd = tracer_fd(s->tracer), .events = POLLIN },
	};
	struct line_reader r = { .len = 0 };
	char line[sizeof(r.buf) + 1];
	int err = 0, first = 0;

	prompt();
	for (;;) {
		while (next_line(&r, line, sizeof(line))) {
			bool was_collecting = s->collecting;

			if (run_command(s, line, &err) == LEAVE)
				return first;
			/* The idle clock restarts when a window ends. */
			if (was_collecting && !s->collecting)
				idle_since = clock_ns(CLOCK_MONOTONIC);
			if (err && !first)
				first = err;
			prompt();
		}
		if (r.eof)
			return first;
		if (poll(fds, 3, POLL_MS) < 0 && errno != EINTR)
			return -errno;
		if (fds[2].revents & POLLIN)
			session_consume(s);
		if (fds[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sigfd, &si, sizeof(si)) == sizeof(si))
				printf("\nmsprof: %s, leaving\n", strsignal((int)si.ssi_signo));
			return first;
		}
		if (fds[0].revents & (POLLIN | POLLHUP)) {
			ssize_t n = read(STDIN_FILENO, r.buf + r.len,
					 sizeof(r.buf) - r.len);

			if (n <= 0)
				r.eof = true;
			else
				r.len += (size_t)n;
		}
		if (child > 0 && waitpid(child, NULL, WNOHANG) == child)
			child = 0;
		if (!session_check_targets(s)) {
			printf("\nmsprof: no task left to profile\n");
			return first;
		}
		if (idle_too_long(s, idle_since, idle_s)) {
			printf("\nmsprof: no start for %u s: leaving the interactive mode; the task keeps running, run msprof again to re-enter\n",
			       idle_s);
			return first;
		}
	}
}
