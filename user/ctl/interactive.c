// SPDX-License-Identifier: MIT
/* The interactive prompt and the event loop around it. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "interactive.h"
#include "line_input.h"

/* Checks for exited targets this often while waiting for input. */
#define POLL_MS 500

static void help(void)
{
	puts("Usage:\n"
	     "  start   begin a collection window\n"
	     "  stop    end it and write its PROF_ directories\n"
	     "  status  state, window, events and losses so far\n"
	     "  quit    stop if needed and leave; the task keeps running (also: q)\n"
	     "  help    this text (also: h)");
}

/*
 * quit: msprof's word on it as the agents answered, then ours.  What went
 * wrong is said; as any way out, it leaves with status 0.
 */
static void quit(struct session *s)
{
	puts(session_quit(s) ? MSPROF_SAYS_STOP_FAILED : MSPROF_SAYS_QUIT_SUCCESS);
	printf("msprof: left the interactive mode after %u window%s; the task keeps running\n",
	       session_windows(s), session_windows(s) == 1 ? "" : "s");
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
	else if (!strcmp(word, "quit") || !strcmp(word, "q") ||
		 !strcmp(word, "exit")) {
		quit(s);
		return LEAVE;
	} else if (!strcmp(word, "status")) {
		session_status(s);
	} else if (!strcmp(word, "help") || !strcmp(word, "h")) {
		help();
	} else {
		/* As msprof's own prompt answers one. */
		printf("invalid option -- '%s'\n", word);
		help();
	}
	return GO_ON;
}

/* True once idle_s passed with no window running since since_ns. */
static bool idle_too_long(const struct session *s, uint64_t since_ns,
			  unsigned int idle_s)
{
	if (session_collecting(s))
		return false;
	return clock_ns(CLOCK_MONOTONIC) - since_ns >= idle_s * 1000000000ull;
}

/* One pass over the waiting lines; LEAVE at quit or end of input. */
static enum verdict run_lines(struct session *s, struct line_input *in,
			      uint64_t *idle_since, int *first)
{
	char line[4097];
	int got, err = 0;

	while ((got = line_input_next(in, line, sizeof(line))) > 0) {
		bool was_collecting = session_collecting(s);

		if (run_command(s, line, &err) == LEAVE)
			return LEAVE;
		/* The idle clock restarts when a window ends. */
		if (was_collecting && !session_collecting(s))
			*idle_since = clock_ns(CLOCK_MONOTONIC);
		if (err && !*first)
			*first = err;
		line_input_prompt(in);
	}
	return got < 0 ? LEAVE : GO_ON;
}

static int run_loop(struct session *s, struct line_input *in, int sigfd,
		    pid_t child, unsigned int idle_s)
{
	uint64_t idle_since = clock_ns(CLOCK_MONOTONIC);
	struct pollfd fds[3] = {
		{ .fd = STDIN_FILENO, .events = POLLIN },
		{ .fd = sigfd, .events = POLLIN },
		{ .fd = session_fd(s), .events = POLLIN },
	};
	int first = 0;

	line_input_prompt(in);
	for (;;) {
		if (run_lines(s, in, &idle_since, &first) == LEAVE)
			return first;
		if (poll(fds, 3, session_collecting(s) ? SESSION_CONSUME_MS :
			 POLL_MS) < 0 && errno != EINTR)
			return -errno;
		if ((fds[2].revents & POLLIN) || session_collecting(s))
			session_consume(s);
		if (fds[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sigfd, &si, sizeof(si)) != sizeof(si))
				return first;
			/* As at msprof's own prompt: Ctrl-C does not leave. */
			if (si.ssi_signo == SIGINT) {
				puts("\nUse 'quit' or 'q' to exit dynamic profiling.");
				line_input_prompt(in);
				continue;
			}
			printf("\nmsprof: %s, leaving\n", strsignal((int)si.ssi_signo));
			return first;
		}
		if (fds[0].revents & (POLLIN | POLLHUP))
			line_input_feed(in);
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

int interactive_run(struct session *s, int sigfd, pid_t child,
		    unsigned int idle_s)
{
	struct line_input *in;
	int err = line_input_open(&in, "(msprof) ");

	if (err)
		return err;
	err = run_loop(s, in, sigfd, child, idle_s);
	line_input_close(in);
	return err;
}
