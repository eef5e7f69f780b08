// SPDX-License-Identifier: MIT
/* Launch mode: starting the app and finding the task it becomes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "msprof/protocol.h"
#include "proc/procfs.h"

/* Puts the agent first in LD_PRELOAD, keeping what the user preloads. */
static void preload(const char *agent)
{
	const char *old = getenv("LD_PRELOAD");
	char *both;

	if (!old || !*old) {
		setenv("LD_PRELOAD", agent, 1);
		return;
	}
	if (asprintf(&both, "%s:%s", agent, old) >= 0)
		setenv("LD_PRELOAD", both, 1);
}

int launch_app(char *const *argv, const char *agent, const sigset_t *sigmask,
	       pid_t *child)
{
	int pipefd[2], child_err = 0;
	ssize_t n;
	pid_t pid;

	/* A close-on-exec pipe carries exec's failure back to us. */
	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(pipefd[0]);
		close(pipefd[1]);
		return err;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null >= 0)
			dup2(null, STDIN_FILENO);
		/*
		 * Its own process group: Ctrl-C at the prompt ends msprof's
		 * session, not the task (the seed: the task continues).
		 */
		setpgid(0, 0);
		sigprocmask(SIG_SETMASK, sigmask, NULL);
		signal(SIGPIPE, SIG_DFL);
		setenv("PROFILING_MODE", "dynamic", 1);
		preload(agent);
		execvp(argv[0], argv);
		child_err = errno;
		if (write(pipefd[1], &child_err, sizeof(child_err)) !=
		    sizeof(child_err))
			_exit(126);
		_exit(127);
	}
	close(pipefd[1]);
	do {
		n = read(pipefd[0], &child_err, sizeof(child_err));
	} while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (n == sizeof(child_err)) {
		waitpid(pid, NULL, 0);
		return -child_err;
	}
	*child = pid;
	return 0;
}

int launch_each_task(pid_t root, const char *home, launch_task_fn fn,
		     void *ctx)
{
	size_t plen = strlen(MSPROF_SOCKET_PREFIX);
	struct dirent *de;
	int ret = 0;
	DIR *d;

	d = opendir(home);
	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(de->d_name, MSPROF_SOCKET_PREFIX, plen))
			continue;
		pid = strtol(de->d_name + plen, &end, 10);
		if (*end || pid <= 0 || !procfs_is_descendant((int)pid, root))
			continue;
		ret = fn((int)pid, ctx);
	}
	closedir(d);
	return ret;
}

/* Stops the walk at the first task, keeping it. */
static int first_task(int pid, void *task_pid)
{
	*(int *)task_pid = pid;
	return 1;
}

int launch_find_task(pid_t child, const char *home, int timeout_ms,
		     int *task_pid)
{
	const struct timespec step = { .tv_nsec = 100 * 1000000 };
	int waited, err;

	for (waited = 0; waited <= timeout_ms; waited += 100) {
		err = launch_each_task(child, home, first_task, task_pid);
		if (err)
			return err < 0 ? err : 0;
		if (waitpid(child, NULL, WNOHANG) == child)
			return -ECHILD;
		nanosleep(&step, NULL);
	}
	return -ETIMEDOUT;
}
