// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/probes.h"
#include "msprof/events.h"
#include "msprof/probe_packs.h"
#include "unit.h"

#define PACK(i) (&msprof_probe_packs[i])

/* Distinct function names of the packs of the layers in mask. */
static size_t distinct_functions(unsigned int mask)
{
	size_t i, j, n = 0, pi, pj;

	for (pi = 0; pi < msprof_nr_probe_packs; pi++) {
		if (!(mask & 1u << PACK(pi)->layer))
			continue;
		for (i = 0; i < PACK(pi)->nfuncs; i++) {
			bool seen = false;

			for (pj = 0; pj <= pi && !seen; pj++) {
				if (!(mask & 1u << PACK(pj)->layer))
					continue;
				for (j = 0; j < (pj == pi ? i : PACK(pj)->nfuncs) && !seen; j++)
					seen = !strcmp(PACK(pj)->funcs[j].name,
						       PACK(pi)->funcs[i].name);
			}
			n += !seen;
		}
	}
	return n;
}

/*
 * Every layer at once fits the API ids, each function once, in its pack's
 * layer and with its pack's arguments.
 */
static void test_probe_set(void)
{
	const unsigned int all = (1u << MSPROF_LAYER_MAX) - 1;
	struct probe_set ps;
	char err[256] = "";
	size_t i, j;
	unsigned int l;

	CU_ASSERT_EQUAL_FATAL(probe_set_build(&ps, all, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(ps.n, distinct_functions(all));
	CU_ASSERT(ps.n <= MSPROF_MAX_APIS);
	for (i = 0; i < ps.n; i++) {
		for (j = 0; j < i; j++)
			CU_ASSERT_STRING_NOT_EQUAL(ps.v[i].name, ps.v[j].name);
		CU_ASSERT_PTR_NULL(ps.v[i].lib);
		CU_ASSERT_NOT_EQUAL(ps.v[i].layer, MSPROF_LAYER_CUSTOM);
	}
	probe_set_free(&ps);
	/* Each layer alone: its packs' functions, of that layer only. */
	for (l = 0; l < MSPROF_LAYER_MAX; l++) {
		CU_ASSERT_EQUAL_FATAL(probe_set_build(&ps, 1u << l, NULL, err, sizeof(err)), 0);
		CU_ASSERT_EQUAL(ps.n, distinct_functions(1u << l));
		for (i = 0; i < ps.n; i++)
			CU_ASSERT_EQUAL(ps.v[i].layer, (enum msprof_api_layer)l);
		probe_set_free(&ps);
	}
	CU_ASSERT_EQUAL_FATAL(probe_set_build(&ps, 0, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(ps.n, 0);
	probe_set_free(&ps);
}

/* --uprobe's functions come after the packs', raw registers shown. */
static void test_uprobes(void)
{
	const unsigned int acl = 1u << MSPROF_LAYER_ACL;
	size_t packed = distinct_functions(acl);
	struct probe_set ps;
	char err[256] = "";

	CU_ASSERT_EQUAL_FATAL(probe_set_build(&ps, acl, "libc.so.6:malloc,libc:malloc",
					      err, sizeof(err)), 0);
	/* One function in two libraries: two probes. */
	CU_ASSERT_EQUAL_FATAL(ps.n, packed + 2);
	CU_ASSERT_STRING_EQUAL(ps.v[packed].lib, "libc.so.6");
	CU_ASSERT_STRING_EQUAL(ps.v[packed].name, "malloc");
	CU_ASSERT_EQUAL(ps.v[packed].layer, MSPROF_LAYER_CUSTOM);
	CU_ASSERT_STRING_EQUAL(ps.v[packed].args[0].name, "arg0");
	CU_ASSERT_EQUAL(ps.v[packed].args[5].kind, MSPROF_ARG_HEX);
	CU_ASSERT_STRING_EQUAL(ps.v[packed + 1].lib, "libc");
	CU_ASSERT_STRING_EQUAL(ps.v[packed + 1].name, "malloc");
	CU_ASSERT(probe_in_library(&ps.v[packed], "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	CU_ASSERT_FALSE(probe_in_library(&ps.v[packed], "/usr/lib/libm.so.6"));
	/*
	 * A pack's function only in its packs' libraries: npusim's and CANN's
	 * share the ACL table, so both; renamed copies by the name's start.
	 */
	CU_ASSERT_FALSE(probe_in_library(&ps.v[0], "/opt/anything.so"));
	CU_ASSERT(probe_in_library(&ps.v[0], "/opt/lib/libnpusim.so"));
	CU_ASSERT(probe_in_library(&ps.v[0], "/usr/local/Ascend/lib64/libascendcl.so"));
	CU_ASSERT(probe_in_library(&ps.v[0], "/usr/local/Ascend/lib64/libacl_op_compiler.so"));
	CU_ASSERT_FALSE(probe_in_library(&ps.v[0], "/usr/local/Ascend/lib64/libhccl.so"));
	CU_ASSERT_FALSE(probe_in_library(&ps.v[0], "/opt/libascendcl/libfoo.so"));
	probe_set_free(&ps);
	/* Off, a pack's library is no reason: CUDA's functions are not ACL's. */
	CU_ASSERT_EQUAL_FATAL(probe_set_build(&ps, 1u << MSPROF_LAYER_CUDA_RUNTIME,
					      NULL, err, sizeof(err)), 0);
	CU_ASSERT(probe_in_library(&ps.v[0], "/site-packages/nvidia/libcudart-d0da41ae.so.12"));
	CU_ASSERT_FALSE(probe_in_library(&ps.v[0], "/opt/lib/libnpusim.so"));
	probe_set_free(&ps);

	/* A function a pack probes already is not probed twice. */
	CU_ASSERT_EQUAL_FATAL(probe_set_build(&ps, acl, "libascendcl:aclInit", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(ps.n, packed + 1);
	probe_set_free(&ps);
	/* A malformed item never gets here: the option parser refuses it. */
}

/* More functions than API ids: refused, in one line. */
static void test_too_many(void)
{
	const size_t n = MSPROF_MAX_APIS + 1;
	char *list = malloc(n * 16), *p = list, err[256] = "";
	struct probe_set ps;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(list);
	for (i = 0; i < n; i++)
		p += sprintf(p, "%slib:f%zu", i ? "," : "", i);
	CU_ASSERT_EQUAL(probe_set_build(&ps, 0, list, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "more than 256 functions"));
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	/* One fewer fits. */
	*strrchr(list, ',') = '\0';
	CU_ASSERT_EQUAL(probe_set_build(&ps, 0, list, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(ps.n, MSPROF_MAX_APIS);
	probe_set_free(&ps);
	free(list);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "all layers' functions fit the API ids, once each", test_probe_set },
		{ "--uprobe functions follow the packs'", test_uprobes },
		{ "more functions than API ids are refused", test_too_many },
		CU_TEST_INFO_NULL,
	};

	return add_suite("probes", tests);
}

UNIT_SUITE(register_tests)
