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
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/printable.h"
#include "control.h"
#include "interactive.h"
#include "line_input.h"
#include "start_at.h"

/* Checks for exited targets this often while waiting for input. */
#define POLL_MS 500
/*
 * A "start at" sleeps its last stretch in clock_nanosleep(), to the
 * instant: poll() only counts whole milliseconds, and may wake late.
 */
#define START_AT_SLEEP_MS 20

static void help(void)
{
	puts("Usage:\n"
	     "  start   begin a collection window\n"
	     "  start at <when>  begin it at that instant: @<epoch seconds>[.frac]\n"
	     "          or ISO 8601 with a zone (2026-12-01T04:00:00Z); stop cancels\n"
	     "  stop    end it and write its PROF_ directories\n"
	     "  status  state, window, events and losses so far\n"
	     "  quit    stop if needed and leave; the task keeps running (also: q)\n"
	     "  help    this text (also: h)");
}

/* The prompt's state between commands. */
struct loop {
	struct session *s;
	struct line_input *in;		/* stdin; NULL once it ended */
	struct line_input *ctl;		/* --control, or NULL */
	uint64_t start_at;		/* CLOCK_REALTIME ns to start at; 0: none */
	uint64_t idle_since;
	int first;			/* the first failure */
};

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

/* "@<s>.<ns>": the form that reads back as given, on any node. */
static void say_instant(const char *what, uint64_t at)
{
	time_t secs = (time_t)(at / 1000000000ull);
	char iso[32] = "";
	struct tm tm;

	if (gmtime_r(&secs, &tm))
		strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%S", &tm);
	printf("msprof: %s %s.%09lluZ (@%llu.%09llu)\n", what, iso,
	       (unsigned long long)(at % 1000000000ull),
	       (unsigned long long)secs, (unsigned long long)(at % 1000000000ull));
}

static void schedule(struct loop *l, const char *when)
{
	char err[256];
	uint64_t at;

	if (session_collecting(l->s)) {
		/* As a plain start says it. */
		session_start(l->s, 0);
		return;
	}
	if (start_at_parse(when, clock_ns(CLOCK_REALTIME), &at, err, sizeof(err))) {
		printf("msprof: %s\n", err);
		return;
	}
	l->start_at = at;
	say_instant("collection starts at", at);
}

/* stop and quit take back a start that has not come yet. */
static void cancel(struct loop *l)
{
	say_instant("cancelled the start at", l->start_at);
	l->start_at = 0;
}

enum verdict { GO_ON, LEAVE };

static enum verdict run_command(struct loop *l, const char *cmd, int *err)
{
	char word[32] = "", at[8] = "", when[CONTROL_LINE_MAX + 1] = "", more;
	int n = sscanf(cmd, "%31s %7s %256s %c", word, at, when, &more);

	if (n < 1)
		return GO_ON;
	if (!strcmp(word, "start") && n >= 2 && !strcmp(at, "at")) {
		if (n != 3)
			printf("msprof: start at takes one time: @<epoch seconds>[.frac] or ISO 8601 with a zone\n");
		else if (l->start_at)
			printf("msprof: a start is already set; stop cancels it\n");
		else
			schedule(l, when);
	} else if (!strcmp(word, "start")) {
		if (l->start_at)
			printf("msprof: a start is set: stop cancels it, then start\n");
		else
			*err = session_start(l->s, 0);
	} else if (!strcmp(word, "stop")) {
		if (l->start_at)
			cancel(l);
		else
			*err = session_stop(l->s);
	} else if (!strcmp(word, "quit") || !strcmp(word, "q") ||
		   !strcmp(word, "exit")) {
		if (l->start_at)
			cancel(l);
		quit(l->s);
		return LEAVE;
	} else if (!strcmp(word, "status")) {
		session_status(l->s);
		if (l->start_at)
			say_instant("collection is set to start at", l->start_at);
	} else if (!strcmp(word, "help") || !strcmp(word, "h")) {
		help();
	} else {
		/* As msprof's own prompt answers one. */
		printf("invalid option -- '%s'\n", word);
		help();
	}
	return GO_ON;
}

/* True once idle_s passed with no window running or set since since_ns. */
static bool idle_too_long(const struct loop *l, unsigned int idle_s)
{
	if (session_collecting(l->s) || l->start_at)
		return false;
	return clock_ns(CLOCK_MONOTONIC) - l->idle_since >= idle_s * 1000000000ull;
}

enum lines { LINES_WAIT, LINES_QUIT, LINES_ENDED };

/* One pass over the waiting lines of in; from: a control path's name. */
static enum lines run_lines(struct loop *l, struct line_input *in,
			    const char *from)
{
	char line[CONTROL_LINE_MAX + 1];
	int got, err = 0;

	while ((got = line_input_next(in, line, sizeof(line))) > 0) {
		bool was_collecting = session_collecting(l->s);

		if (got == LINE_INPUT_TOO_LONG) {
			printf("msprof: a command line longer than %d bytes was ignored\n",
			       CONTROL_LINE_MAX);
			continue;
		}
		if (from)
			printf("msprof: from %s: %s\n", from, printable(line));
		if (run_command(l, line, &err) == LEAVE)
			return LINES_QUIT;
		/* The idle clock restarts when a window ends. */
		if (was_collecting && !session_collecting(l->s))
			l->idle_since = clock_ns(CLOCK_MONOTONIC);
		if (err && !l->first)
			l->first = err;
		if (l->in)
			line_input_prompt(l->in);
	}
	return got < 0 ? LINES_ENDED : LINES_WAIT;
}

/*
 * The instant of a "start at" is near: slept to in clock_nanosleep(),
 * which wakes on the clock itself, so that every node's start is the same
 * instant; a command in these last milliseconds comes after the start.
 */
static void start_when_due(struct loop *l)
{
	struct timespec ts = {
		.tv_sec = (time_t)(l->start_at / 1000000000ull),
		.tv_nsec = (long)(l->start_at % 1000000000ull),
	};
	uint64_t at = l->start_at;
	int err;

	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	l->start_at = 0;
	err = session_start(l->s, at);
	if (err && !l->first)
		l->first = err;
}

/* How long poll() may wait: less when a start is near; -1: it is due. */
static int poll_ms(const struct loop *l)
{
	int ms = session_collecting(l->s) ? SESSION_CONSUME_MS : POLL_MS;
	uint64_t now, left;

	if (!l->start_at)
		return ms;
	now = clock_ns(CLOCK_REALTIME);
	left = l->start_at > now ? (l->start_at - now) / 1000000 : 0;
	if (left <= START_AT_SLEEP_MS)
		return -1;
	return left - START_AT_SLEEP_MS < (uint64_t)ms ?
	       (int)(left - START_AT_SLEEP_MS) : ms;
}

/* A signal: GO_ON after Ctrl-C, as msprof's prompt; LEAVE for others. */
static enum verdict on_signal(struct loop *l, int sigfd)
{
	struct signalfd_siginfo si;

	if (read(sigfd, &si, sizeof(si)) != sizeof(si))
		return LEAVE;
	if (si.ssi_signo == SIGINT) {
		puts("\nUse 'quit' or 'q' to exit dynamic profiling.");
		if (l->in)
			line_input_prompt(l->in);
		return GO_ON;
	}
	printf("\nmsprof: %s, leaving\n", strsignal((int)si.ssi_signo));
	return LEAVE;
}

/* stdin's lines; its end leaves unless a control path takes over. */
static enum verdict run_stdin(struct loop *l)
{
	enum lines r = l->in ? run_lines(l, l->in, NULL) : LINES_WAIT;

	if (r == LINES_QUIT || (r == LINES_ENDED && !l->ctl))
		return LEAVE;
	if (r == LINES_ENDED) {
		line_input_close(l->in);
		l->in = NULL;
	}
	return GO_ON;
}

static int run_loop(struct loop *l, int sigfd, int ctl_fd, pid_t child,
		    unsigned int idle_s)
{
	struct pollfd fds[4] = {
		{ .fd = STDIN_FILENO, .events = POLLIN },
		{ .fd = sigfd, .events = POLLIN },
		{ .fd = session_fd(l->s), .events = POLLIN },
		{ .fd = ctl_fd, .events = POLLIN },
	};
	int ms;

	line_input_prompt(l->in);
	for (;;) {
		if (run_stdin(l) == LEAVE ||
		    (l->ctl && run_lines(l, l->ctl, "control") == LINES_QUIT))
			return l->first;
		fds[0].fd = l->in ? STDIN_FILENO : -1;
		ms = poll_ms(l);
		if (ms < 0) {
			start_when_due(l);
			continue;
		}
		if (poll(fds, 4, ms) < 0 && errno != EINTR)
			return -errno;
		if ((fds[2].revents & POLLIN) || session_collecting(l->s))
			session_consume(l->s);
		if ((fds[1].revents & POLLIN) && on_signal(l, sigfd) == LEAVE)
			return l->first;
		if (l->in && (fds[0].revents & (POLLIN | POLLHUP)))
			line_input_feed(l->in);
		if (l->ctl && (fds[3].revents & POLLIN))
			line_input_feed(l->ctl);
		if (child > 0 && waitpid(child, NULL, WNOHANG) == child)
			child = 0;
		if (!session_check_targets(l->s)) {
			printf("\nmsprof: no task left to profile\n");
			return l->first;
		}
		if (idle_too_long(l, idle_s)) {
			printf("\nmsprof: no start for %u s: leaving the interactive mode; the task keeps running, run msprof again to re-enter\n",
			       idle_s);
			return l->first;
		}
	}
}

int interactive_run(struct session *s, int sigfd, pid_t child,
		    unsigned int idle_s, int ctl_fd)
{
	struct loop l = { .s = s, .idle_since = clock_ns(CLOCK_MONOTONIC) };
	int err = line_input_open(&l.in, "(msprof) ");

	if (!err && ctl_fd >= 0)
		err = line_input_open_fd(&l.ctl, ctl_fd, NULL);
	if (!err)
		err = run_loop(&l, sigfd, ctl_fd, child, idle_s);
	if (l.in)
		line_input_close(l.in);
	if (l.ctl)
		line_input_close(l.ctl);
	return err;
}
