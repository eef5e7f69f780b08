// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "proc/procfs.h"
#include "unit.h"

const char *__lsan_default_suppressions(void);

/*
 * glibc keeps a thread's last dlerror() text in a buffer of its own, freed
 * as the thread ends: a server thread the tests started (its backends look
 * runtimes up with dlsym) may still hold one as the process exits, which
 * LeakSanitizer then reports now and again.  It is glibc's, not ours.
 */
const char *__lsan_default_suppressions(void)
{
	return "leak:_dlerror_run\n";
}

int add_suite_needing(const char *name, const CU_TestInfo *tests,
		      const CU_TestInfo *needy, const char *why,
		      unsigned int *skipped)
{
	CU_pSuite s = CU_add_suite(name, NULL, NULL);
	const CU_TestInfo *t;

	if (!s)
		return -1;
	for (t = tests; t->pName; t++)
		if (!CU_add_test(s, t->pName, t->pTestFunc))
			return -1;
	for (t = needy; t && t->pName; t++)
		if (why)
			unit_skip(skipped, name, t->pName, why);
		else if (!CU_add_test(s, t->pName, t->pTestFunc))
			return -1;
	return 0;
}

int add_suite(const char *name, const CU_TestInfo *tests)
{
	return add_suite_needing(name, tests, NULL, NULL, NULL);
}

long unit_peak_kib(void)
{
	char line[128];
	long kib = -1;
	FILE *fp = fopen("/proc/self/status", "re");

	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(fp);
	CU_ASSERT(kib > 0);
	return kib;
}

long unit_peak_reset(void)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, "5", 1), 1);
	close(fd);
	return unit_peak_kib();
}

const char *unit_no_openat2(void)
{
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC };
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));

	if (fd >= 0) {
		close(fd);
		return NULL;
	}
	/* Anything else is a failure msprof would meet too: the tests run. */
	return errno == ENOSYS ? "openat2() is ENOSYS here: qemu-user" : NULL;
}

void unit_read_text(int dir, const char *path, char *text, size_t len)
{
	int fd = openat(dir, path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	text[0] = '\0';
	CU_ASSERT_FATAL(fd >= 0);
	n = read(fd, text, len - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
}

pid_t unit_spawn_sleep(char *const envp[])
{
	char *argv[] = { "sleep", "30", NULL };
	char comm[16] = "";
	pid_t pid;
	int i;

	CU_ASSERT_EQUAL_FATAL(posix_spawn(&pid, "/bin/sleep", NULL, NULL, argv, envp), 0);
	for (i = 0; i < 200 && strcmp(comm, "sleep"); i++) {
		procfs_comm(pid, comm, sizeof(comm));
		usleep(10000);
	}
	CU_ASSERT_STRING_EQUAL(comm, "sleep");
	return pid;
}

void unit_reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

void unit_skip(unsigned int *skipped, const char *suite, const char *test,
	       const char *why)
{
	printf("skip %s: %s (%s)\n", suite, test, why);
	(*skipped)++;
}

/* More test files than this is a build error caught at the first run. */
#define UNIT_MAX_SUITES 128

static unit_register_fn *suites[UNIT_MAX_SUITES];
static unsigned int nsuites;
static bool too_many;

void unit_suite_add(unit_register_fn *fn)
{
	if (nsuites == UNIT_MAX_SUITES)
		too_many = true;
	else
		suites[nsuites++] = fn;
}

static int register_all(unsigned int *skipped)
{
	unsigned int i;

	if (too_many) {
		fprintf(stderr, "unit: more than %d suites: raise UNIT_MAX_SUITES\n",
			UNIT_MAX_SUITES);
		return -1;
	}
	for (i = 0; i < nsuites; i++)
		if (suites[i](skipped))
			return -1;
	return 0;
}

/* Ends with the line tests/run-all.sh counts, as every suite does. */
int main(void)
{
	unsigned int failed, passed, skipped = 0;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	if (register_all(&skipped)) {
		CU_cleanup_registry();
		return 1;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	/* A suite whose setup failed ran none of its tests: one failure. */
	failed = CU_get_number_of_tests_failed() +
		 CU_get_number_of_suites_failed();
	passed = CU_get_number_of_tests_run() - CU_get_number_of_tests_failed();
	printf("\nunit: %u passed, %u failed, %u skipped\n", passed, failed,
	       skipped);
	failed += CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
