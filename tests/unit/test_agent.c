// SPDX-License-Identifier: MIT
/* Which processes a preloaded agent serves. */
#include <stdbool.h>
#include <stddef.h>

#include "msprof/probe_packs.h"
#include "unit.h"

/* Whether one of the probe packs' runtimes is path. */
static bool is_runtime(const char *path)
{
	size_t i;

	for (i = 0; i < msprof_nr_probe_packs; i++)
		if (msprof_probe_pack_is_library(&msprof_probe_packs[i], path))
			return true;
	return false;
}

/* The runtimes that make a preloaded agent serve are the probe packs'. */
static void test_runtime_libraries(void)
{
	CU_ASSERT(is_runtime("/usr/local/Ascend/lib64/libhccl.so"));
	CU_ASSERT(is_runtime("/opt/lib/libascendcl.so"));
	/* A pack's second library (CANN's op compiler, beside libascendcl). */
	CU_ASSERT(is_runtime("/opt/lib/libacl_op_compiler.so"));
	CU_ASSERT(is_runtime("libnpusim.so"));
	CU_ASSERT(is_runtime("/site-packages/nvidia/libcudart-d0da41ae.so.12"));
	CU_ASSERT(is_runtime("/lib/x86_64-linux-gnu/libcuda.so.1"));
	/* The file's own name counts, not a directory's. */
	CU_ASSERT(!is_runtime("/opt/libhccl/lib/libfoo.so"));
	CU_ASSERT(!is_runtime("/lib/x86_64-linux-gnu/libc.so.6"));
	/* The main program's entry has no name. */
	CU_ASSERT(!is_runtime(""));
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "runtimes are the probe packs' libraries", test_runtime_libraries },
		CU_TEST_INFO_NULL,
	};

	return add_suite("agent", tests);
}

UNIT_SUITE(register_tests)
