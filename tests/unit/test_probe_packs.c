// SPDX-License-Identifier: MIT
/*
 * The probe packs' tables hold what the probing code takes for granted:
 * names that are symbols, layers with a switch, kept arguments
 * named, device patterns under /dev, functions that fit a name record;
 * the libraries that make a preloaded agent serve are the packs'.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "msprof/probe_packs.h"
#include "msprof/recfile.h"
#include "unit.h"

#define PACK(i) (&msprof_probe_packs[i])

/* A C symbol: what a uprobe is placed on by name. */
static bool is_symbol(const char *s)
{
	if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static void say(const struct msprof_probe_pack *pack, const char *what,
		const char *name)
{
	printf("\n  pack %s: %s %s", pack->name ? pack->name : "(none)", what,
	       name ? name : "(none)");
}

static void test_packs(void)
{
	size_t i, j;

	CU_ASSERT_FATAL(msprof_nr_probe_packs > 0);
	for (i = 0; i < msprof_nr_probe_packs; i++) {
		const struct msprof_probe_pack *pack = PACK(i);

		CU_ASSERT_PTR_NOT_NULL_FATAL(pack->name);
		CU_ASSERT(*pack->name);
		for (j = 0; j < i; j++)
			if (!strcmp(PACK(j)->name, pack->name)) {
				say(pack, "named twice", NULL);
				CU_FAIL("two packs of one name");
			}
		/* Matched on its stem, "libcudart" of "libcudart.so". */
		CU_ASSERT_PTR_NOT_NULL_FATAL(pack->libraries);
		CU_ASSERT_EQUAL(strncmp(pack->libraries, "lib", 3), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(pack->libraries, ".so"));
		CU_ASSERT(strcspn(pack->libraries, ".") > 3);
		CU_ASSERT_PTR_NULL(strchr(pack->libraries, '/'));
		/* A pack's layer has a switch; custom is --uprobe's. */
		CU_ASSERT((unsigned int)pack->layer < MSPROF_LAYER_MAX);
		CU_ASSERT_NOT_EQUAL(pack->layer, MSPROF_LAYER_CUSTOM);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pack->funcs);
		CU_ASSERT(pack->nfuncs > 0);
		if (pack->device_env && !is_symbol(pack->device_env)) {
			say(pack, "device variable", pack->device_env);
			CU_FAIL("a device variable that is no variable name");
		}
	}
}

static void check_func(const struct msprof_probe_pack *pack,
		       const struct msprof_probe_func *f)
{
	size_t k, m, names = 0;

	if (!is_symbol(f->name)) {
		say(pack, "function", f->name);
		CU_FAIL("a function that is no symbol");
		return;
	}
	names = strlen(f->name) + 1;
	for (k = 0; k < MSPROF_PROBE_ARGS; k++) {
		const struct msprof_probe_arg *a = &f->args[k];

		CU_ASSERT(a->kind >= MSPROF_ARG_SKIP && a->kind <= MSPROF_ARG_HEX);
		/* A kept argument is named; a name alone would show nothing. */
		if ((a->kind == MSPROF_ARG_SKIP) != (a->name == NULL) ||
		    (a->name && !is_symbol(a->name))) {
			say(pack, "argument of", f->name);
			CU_FAIL("an argument kept without a name, or named and not kept");
			continue;
		}
		names += (a->name ? strlen(a->name) : 0) + 1;
		for (m = 0; a->name && m < k; m++)
			if (f->args[m].name && !strcmp(f->args[m].name, a->name)) {
				say(pack, "argument named twice in", f->name);
				CU_FAIL("two arguments of one name");
			}
	}
	/* The name record the collector writes for it. */
	CU_ASSERT(names <= MSPROF_REC_NAMES_MAX);
	/* A queue function's key is an argument the record keeps. */
	if (f->role != MSPROF_ROLE_NONE &&
	    (f->key >= MSPROF_PROBE_ARGS || f->args[f->key].kind == MSPROF_ARG_SKIP)) {
		say(pack, "key of", f->name);
		CU_FAIL("a queue function keyed by an argument not kept");
	}
}

/* A pack with a queue function has both ends of it, keyed alike. */
static void check_queue(const struct msprof_probe_pack *pack)
{
	const struct msprof_probe_func *enq = NULL, *deq = NULL;
	size_t j;

	for (j = 0; j < pack->nfuncs; j++) {
		if (pack->funcs[j].role == MSPROF_ROLE_ENQUEUE)
			enq = &pack->funcs[j];
		if (pack->funcs[j].role == MSPROF_ROLE_DEQUEUE)
			deq = &pack->funcs[j];
	}
	if (!enq && !deq)
		return;
	if (!enq || !deq || enq->key_kind != deq->key_kind) {
		say(pack, "queue ends", enq ? enq->name : deq->name);
		CU_FAIL("a queue without both ends keyed alike");
	}
}

static void test_functions(void)
{
	size_t i, j, k;

	for (i = 0; i < msprof_nr_probe_packs; i++) {
		const struct msprof_probe_pack *pack = PACK(i);

		check_queue(pack);
		for (j = 0; j < pack->nfuncs; j++) {
			check_func(pack, &pack->funcs[j]);
			for (k = 0; k < j; k++)
				if (pack->funcs[j].name && pack->funcs[k].name &&
				    !strcmp(pack->funcs[j].name, pack->funcs[k].name)) {
					say(pack, "probes twice", pack->funcs[j].name);
					CU_FAIL("a function twice in a pack");
				}
		}
	}
}

/*
 * A function in two packs is probed once, as the first pack says: the
 * second must not say otherwise (npusim shares CANN's acl table).
 */
static void test_shared_functions(void)
{
	size_t i, j, a, b;

	for (i = 0; i < msprof_nr_probe_packs; i++)
		for (j = i + 1; j < msprof_nr_probe_packs; j++)
			for (a = 0; a < PACK(i)->nfuncs; a++)
				for (b = 0; b < PACK(j)->nfuncs; b++) {
					const struct msprof_probe_func *f = &PACK(i)->funcs[a];
					const struct msprof_probe_func *g = &PACK(j)->funcs[b];

					if (strcmp(f->name, g->name))
						continue;
					if (PACK(i)->layer != PACK(j)->layer) {
						say(PACK(j), "has another layer for", g->name);
						CU_FAIL("a shared function in two layers");
					}
					if (memcmp(f->args, g->args, sizeof(f->args))) {
						say(PACK(j), "has other arguments for", g->name);
						CU_FAIL("a shared function with two signatures");
					}
				}
}

/* A glob pattern for nodes under /dev: brackets closed, nothing above. */
static bool is_dev_pattern(const char *p)
{
	bool open = false;

	if (strncmp(p, "/dev/", 5) || !p[5] || strstr(p, "/../") ||
	    strstr(p, "//"))
		return false;
	for (; *p; p++) {
		if (*p == '[') {
			if (open)
				return false;
			open = true;
		} else if (*p == ']') {
			if (!open)
				return false;
			open = false;
		} else if (open && *p == '/') {
			return false;
		} else if (*p < 0x21 || *p > 0x7e) {
			return false;
		}
	}
	return !open;
}

static void test_devices(void)
{
	size_t i, j;

	CU_ASSERT(is_dev_pattern("/dev/nvidia[0-9]*"));
	CU_ASSERT_FALSE(is_dev_pattern("/dev/x[0-9"));
	CU_ASSERT_FALSE(is_dev_pattern("/dev/../etc/passwd"));
	CU_ASSERT_FALSE(is_dev_pattern("/proc/self/mem"));
	for (i = 0; i < msprof_nr_probe_packs; i++) {
		const struct msprof_probe_pack *pack = PACK(i);

		/* NULL-terminated: ASan stops a walk past the end. */
		CU_ASSERT_PTR_NOT_NULL_FATAL(pack->devices);
		/* User marks and libc speak to no driver: a runtime does. */
		CU_ASSERT(pack->layer == MSPROF_LAYER_MSTX || msprof_probe_pack_is_system(pack) ||
			  pack->devices[0]);
		for (j = 0; pack->devices[j]; j++)
			if (!is_dev_pattern(pack->devices[j])) {
				say(pack, "device", pack->devices[j]);
				CU_FAIL("a device pattern that is not a node under /dev");
			}
	}
}

/* Every switch's layer has a pack (export's names: test_naming.c). */
static void test_layers(void)
{
	unsigned int l;
	size_t i;

	for (l = 0; l < MSPROF_LAYER_MAX; l++) {
		bool packed = false;

		for (i = 0; i < msprof_nr_probe_packs; i++)
			packed |= PACK(i)->layer == (enum msprof_api_layer)l;
		CU_ASSERT(packed || l == MSPROF_LAYER_CUSTOM);
	}
}

/* The runtimes that make a preloaded agent serve are the probe packs'. */
static void test_runtime_libraries(void)
{
	CU_ASSERT(msprof_probe_pack_is_runtime("/usr/local/Ascend/lib64/libhccl.so"));
	CU_ASSERT(msprof_probe_pack_is_runtime("/opt/lib/libascendcl.so"));
	/* A pack's second library (CANN's op compiler, beside libascendcl). */
	CU_ASSERT(msprof_probe_pack_is_runtime("/opt/lib/libacl_op_compiler.so"));
	CU_ASSERT(msprof_probe_pack_is_runtime("libnpusim.so"));
	CU_ASSERT(msprof_probe_pack_is_runtime("/site-packages/nvidia/libcudart-d0da41ae.so.12"));
	CU_ASSERT(msprof_probe_pack_is_runtime("/lib/x86_64-linux-gnu/libcuda.so.1"));
	/* The file's own name counts, not a directory's. */
	CU_ASSERT(!msprof_probe_pack_is_runtime("/opt/libhccl/lib/libfoo.so"));
	CU_ASSERT(!msprof_probe_pack_is_runtime("/lib/x86_64-linux-gnu/libc.so.6"));
	/* The main program's entry has no name. */
	CU_ASSERT(!msprof_probe_pack_is_runtime(""));
}

/* A system pack's library is its whole stem: libc is not libcudart. */
static void test_system_libraries(void)
{
	const struct msprof_probe_pack *libc = NULL;
	size_t i;

	for (i = 0; i < msprof_nr_probe_packs; i++)
		if (PACK(i)->layer == MSPROF_LAYER_OSRT)
			libc = PACK(i);
	CU_ASSERT_PTR_NOT_NULL_FATAL(libc);
	CU_ASSERT(msprof_probe_pack_is_system(libc));
	CU_ASSERT(msprof_probe_pack_is_library(libc, "/lib/x86_64-linux-gnu/libc.so.6"));
	CU_ASSERT(msprof_probe_pack_is_library(libc, "/lib/libc-2.31.so"));
	CU_ASSERT(msprof_probe_pack_is_library(libc, "/lib/libpthread.so.0"));
	CU_ASSERT(msprof_probe_pack_is_library(libc, "libpthread-2.31.so"));
	CU_ASSERT(!msprof_probe_pack_is_library(libc, "/opt/libcudart.so.12"));
	CU_ASSERT(!msprof_probe_pack_is_library(libc, "/lib/libcrypto.so.3"));
	CU_ASSERT(!msprof_probe_pack_is_library(libc, "/lib/libc++.so.1"));
	CU_ASSERT(!msprof_probe_pack_is_library(libc, "libpthreadpool.so"));
	/* Runtime packs keep their prefix rule: renamed wheels' copies. */
	CU_ASSERT(msprof_probe_pack_is_runtime("/x/libcudart-d0da41ae.so.12"));
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "packs: named, a library, a layer with a switch", test_packs },
		{ "functions: symbols, named arguments, once a pack", test_functions },
		{ "a function in two packs is the same in both", test_shared_functions },
		{ "device nodes: patterns under /dev, NULL-terminated", test_devices },
		{ "layers: each switch's with a pack", test_layers },
		{ "system libraries: whole stems, no runtime", test_system_libraries },
		{ "runtimes are the probe packs' libraries", test_runtime_libraries },
		CU_TEST_INFO_NULL,
	};

	return add_suite("probe_packs", tests);
}

UNIT_SUITE(register_tests)
