// SPDX-License-Identifier: MIT
/* msprof: parse the command line, then run the mode it asks for. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent_path.h"
#include "control.h"
#include "export/analyze.h"
#include "export/collect.h"
#include "export/export.h"
#include "export/query.h"
#include "interactive.h"
#include "host/kfeatures.h"
#include "launch.h"
#include "options.h"
#include "session.h"
#include "tasklist.h"
#include "common/err.h"
#include "common/home.h"
#include "common/testpoint.h"
#include "version.h"

/* How long launch mode waits for the app's agent socket, as msprof does. */
#define LAUNCH_WAIT_S 20

/* MSPROF_LAUNCH_WAIT_S overrides the wait (tests, slow-starting services). */
static int launch_wait_ms(void)
{
	const char *env = getenv("MSPROF_LAUNCH_WAIT_S");
	int s = env ? atoi(env) : 0;

	return (s > 0 ? s : LAUNCH_WAIT_S) * 1000;
}

/*
 * Where a launched app's agent puts its socket: the app inherits HOME.
 * With no home the agent serves no socket, and "/" (root's, holding none)
 * lets the launch wait run out and say so.
 */
static const char *own_home(void)
{
	return home_dir() ?: "/";
}

/*
 * What the kernel offers, asked before anything starts: an app launched on
 * a kernel msprof cannot use would run unprofiled.
 */
static int check_kernel(struct kfeatures *kf)
{
	char why[256];
	int err = kfeatures_probe(kf, why, sizeof(why));

	if (err == -ENOTSUP)
		ERR("%s", why);
	else if (err == -EPERM)
		ERR("cannot load BPF programs: msprof needs root (or CAP_BPF and CAP_PERFMON)");
	else if (err)
		ERR("cannot ask the kernel what BPF features it has: %s",
		    strerror(-err));
	if (err || !getenv("MSPROF_VERBOSE"))
		return err;
	if (!kf->cookies)
		WARN("kernel %s has no BPF attach cookies (Linux 5.15): probed functions are told apart by address",
		     kf->release);
	if (!kf->uprobe_multi)
		WARN("kernel %s has no uprobe_multi links (Linux 6.6): two links per probed function",
		     kf->release);
	return 0;
}

static int run_session(const struct msprof_opts *o, const struct kfeatures *kf,
		       const int *pids, int npids, int sigfd, pid_t child,
		       int ctl_fd)
{
	struct session *s;
	int err;

	err = session_open(&s, o, kf, pids, npids, child, own_home());
	if (err)
		return err;
	err = interactive_run(s, sigfd, child, o->idle_timeout_s, ctl_fd);
	session_close(s);
	return err;
}

/*
 * The session is over and the app runs on in its own process group: a
 * signal now is meant for it.
 */
static void wait_for_app(pid_t child, int sigfd)
{
	struct pollfd pfd = { .fd = sigfd, .events = POLLIN };
	struct signalfd_siginfo si;

	while (waitpid(child, NULL, WNOHANG) == 0) {
		if (poll(&pfd, 1, 200) > 0 &&
		    read(sigfd, &si, sizeof(si)) == sizeof(si))
			kill(-child, (int)si.ssi_signo);
	}
}

/* The agent to preload, or one line saying why there is none. */
static int find_agent(struct agent_path *ap)
{
	const char *given = getenv("MSPROF_AGENT");
	const char *from;
	int err;

	if (given && !*given)
		given = NULL;
	from = given ? "MSPROF_AGENT" : "msprof's install";
	err = agent_path_find(given, ap);
	if (err == -EPERM)
		ERR("not preloading the profiling agent %s (from %s) into the app: %s can be changed by a user other than root or msprof's owner",
		    ap->path, from, ap->refused);
	else if (err == -EINVAL)
		ERR("profiling agent %s (from %s): LD_PRELOAD cannot carry a path with ':', a blank or '$'",
		    ap->path, from);
	else if (err == -ENOEXEC)
		ERR("profiling agent %s (from %s) is not a regular file",
		    ap->path, from);
	else if (err)
		ERR("no profiling agent at %s (from %s): %s%s", ap->path, from,
		    strerror(-err),
		    given ? "" : "; reinstall msprof or set MSPROF_AGENT=<path>");
	return err;
}

static int run_launch(const struct msprof_opts *o, const struct kfeatures *kf,
		      const sigset_t *oldmask, int sigfd, int ctl_fd)
{
	struct agent_path agent;
	int err, task_pid;
	pid_t child;

	if (getenv("PROFILING_MODE") || getenv("PROFILING_OPTIONS")) {
		ERR("unset PROFILING_MODE and PROFILING_OPTIONS: in launch mode msprof sets them for the app");
		return -EINVAL;
	}
	err = find_agent(&agent);
	if (err)
		return err;
	err = launch_app(o->app_argv, agent.path, oldmask, &child);
	if (err) {
		ERR("cannot run %s: %s", o->app_argv[0], strerror(-err));
		return err;
	}
	printf("msprof: launched %s (pid %d)\n", o->app_argv[0], child);
	err = launch_find_task(child, own_home(), launch_wait_ms(), &task_pid);
	if (err == -ECHILD) {
		ERR("%s exited before any profiling agent of it started; if it puts the service in the background, use attach mode: msprof --dynamic=on --pid=<pid>",
		    o->app_argv[0]);
		return err;
	}
	if (err) {
		ERR("no profiling socket from %s or its children within %d s; it keeps running; if the service runs in the background, use attach mode: msprof --dynamic=on --pid=<pid>",
		    o->app_argv[0], launch_wait_ms() / 1000);
		return err;
	}
	err = run_session(o, kf, &task_pid, 1, sigfd, child, ctl_fd);
	if (waitpid(child, NULL, WNOHANG) == 0) {
		printf("msprof: waiting for %s (pid %d) to exit; Ctrl-C stops it\n",
		       o->app_argv[0], child);
		wait_for_app(child, sigfd);
	}
	return err;
}

/* --job: its ranks join the --pid list, and are said. */
static int take_job(struct msprof_opts *o)
{
	int i, from = o->npids;
	int err = tasklist_job(o->job, &o->job_start, o->pids, &o->npids);

	if (err)
		return err;
	printf("msprof: job %d:", o->job);
	for (i = from; i < o->npids; i++)
		printf(" %d", o->pids[i]);
	printf(from == o->npids ? " nothing more than --pid names\n" : "\n");
	return 0;
}

/*
 * The signals that end a session in order, through the event loop, as a
 * signalfd; *oldmask is the mask before, for a launched app.
 */
static int block_signals(sigset_t *oldmask)
{
	sigset_t mask;
	int fd, err;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	/* Whatever would end us by default ends the session in order too. */
	sigaddset(&mask, SIGQUIT);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGUSR2);
	/*
	 * Exactly these: a launcher may hand down others blocked (pdsh blocks
	 * SIGCHLD), and one of those pending since before the exec would end
	 * every wait on an agent as a signal for msprof.
	 */
	sigprocmask(SIG_SETMASK, &mask, oldmask);
	signal(SIGPIPE, SIG_IGN);
	fd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (fd >= 0)
		return fd;
	err = -errno;
	ERR("signalfd: %s", strerror(-err));
	return err;
}

/* Launch and attach mode: a session on the kernel's BPF side. */
static int run_profile(struct msprof_opts *o)
{
	struct control ctl = { .fd = -1 };
	struct kfeatures kf;
	sigset_t oldmask;
	int err, sigfd;

	err = check_kernel(&kf);
	if (!err && o->job)
		err = take_job(o);
	if (err)
		return err;
	sigfd = block_signals(&oldmask);
	if (sigfd < 0)
		return sigfd;
	/* Made before the app starts: a refused path leaves nothing running. */
	if (o->control) {
		err = control_open(&ctl, o->control);
		if (!err)
			printf("msprof: commands are read from %s too\n", ctl.path);
	}
	if (!err && o->mode == MSPROF_MODE_LAUNCH)
		err = run_launch(o, &kf, &oldmask, sigfd, ctl.fd);
	else if (!err)
		err = run_session(o, &kf, o->pids, o->npids, sigfd, 0, ctl.fd);
	control_close(&ctl);
	close(sigfd);
	return err;
}

static int run_help(struct msprof_opts *o)
{
	(void)o;
	opts_usage(stdout);
	return 0;
}

static int run_version(struct msprof_opts *o)
{
	(void)o;
	printf("msprof %s\n", MSPROF_VERSION);
	return 0;
}

static int run_export(struct msprof_opts *o)
{
	testpoint("export-begin");
	return export_run(o->output, o->db);
}

static int run_analyze(struct msprof_opts *o)
{
	return analyze_run(o->output);
}

static int run_list(struct msprof_opts *o)
{
	(void)o;
	return tasklist_print(stdout);
}

static int run_collect(struct msprof_opts *o)
{
	return collect_run(o->collect, o->app_argv);
}

static int run_query(struct msprof_opts *o)
{
	return query_run(o->output);
}

/* What each mode runs, as bpftool's and git's command tables: 0 or an error. */
static int (*const modes[])(struct msprof_opts *o) = {
	[MSPROF_MODE_LAUNCH] = run_profile,
	[MSPROF_MODE_ATTACH] = run_profile,
	[MSPROF_MODE_EXPORT] = run_export,
	[MSPROF_MODE_QUERY] = run_query,
	[MSPROF_MODE_ANALYZE] = run_analyze,
	[MSPROF_MODE_LIST] = run_list,
	[MSPROF_MODE_COLLECT] = run_collect,
	[MSPROF_MODE_HELP] = run_help,
	[MSPROF_MODE_VERSION] = run_version,
};

int main(int argc, char **argv)
{
	struct msprof_opts o;
	char err_msg[512];
	int err;

	/* Lines in order with stderr's, even when a script reads them. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	testpoint_init();
	err = opts_parse(&o, argc, argv, err_msg, sizeof(err_msg));
	if (err)
		ERR("%s", err_msg);
	else
		err = modes[o.mode](&o);
	/* The one way out: whatever the mode, the options are freed. */
	opts_free(&o);
	return err ? 1 : 0;
}
