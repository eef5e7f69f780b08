// SPDX-License-Identifier: MIT
/*
 * The CUPTI backend (agent/backend_cupti.c) in this GPU-less test process:
 * it must stay absent, quietly.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "msprof/agent_backend.h"
#include "unit.h"

#define CUDART "/usr/local/cuda/lib64/libcudart.so"

/* Opens the backend with stderr caught; returns what open returned. */
static int open_quietly(void **state, long *said)
{
	FILE *tmp = tmpfile();
	int saved, err;

	CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	CU_ASSERT_FATAL(saved >= 0);
	dup2(fileno(tmp), STDERR_FILENO);
	err = msprof_backend_cupti.open(state);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	fseek(tmp, 0, SEEK_END);
	*said = ftell(tmp);
	fclose(tmp);
	return err;
}

static void test_no_cuda(void)
{
	void *state = NULL;
	long said;

	CU_ASSERT_EQUAL(open_quietly(&state, &said), -ENODEV);
	CU_ASSERT_PTR_NULL(state);
	CU_ASSERT_EQUAL(said, 0);
}

/*
 * CUDA's runtime mapped, but no driver to give it a device.  Registered
 * only where that holds (see no_driver_here()).
 */
static void test_no_driver(void)
{
	void *cudart, *state = NULL;
	long said;

	cudart = dlopen(CUDART, RTLD_NOW | RTLD_GLOBAL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cudart);
	CU_ASSERT_EQUAL(open_quietly(&state, &said), -ENODEV);
	CU_ASSERT_PTR_NULL(state);
	CU_ASSERT_EQUAL(said, 0);
	dlclose(cudart);
}

/*
 * Whether a library loads, asked of a child: a driver loaded here would
 * stay, and change what test_no_cuda sees.
 */
static bool loads(const char *lib)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(dlopen(lib, RTLD_NOW) ? 0 : 1);
	return pid > 0 && waitpid(pid, &status, 0) == pid &&
	       WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Why test_no_driver cannot run on this machine, or NULL when it can. */
static const char *no_driver_skip_reason(void)
{
	if (!loads(CUDART))
		return "no " CUDART;
	if (loads("libcuda.so.1"))
		return "this machine has a CUDA driver";
	return NULL;
}

static int register_tests(unsigned int *skipped)
{
	static const char no_driver[] = "absent without a CUDA driver, quietly";
	const char *why = no_driver_skip_reason();
	CU_TestInfo tests[3];
	size_t n = 0;

	tests[n++] = (CU_TestInfo){ "absent without CUDA, quietly", test_no_cuda };
	if (why)
		unit_skip(skipped, "backend_cupti", no_driver, why);
	else
		tests[n++] = (CU_TestInfo){ no_driver, test_no_driver };
	tests[n] = (CU_TestInfo)CU_TEST_INFO_NULL;
	return add_suite("backend_cupti", tests);
}

UNIT_SUITE(register_tests)
