/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_UNIT_H
#define MSPROF_UNIT_H

#include <sys/types.h>

#include <CUnit/CUnit.h>

/*
 * A test file's suite: UNIT_SUITE(fn) after fn, which adds its suite (0 or
 * -1 as CUnit wants) and counts in *skipped the tests that cannot run here.
 * main.c runs every suite so declared: a new test file needs no other edit.
 */
typedef int unit_register_fn(unsigned int *skipped);
void unit_suite_add(unit_register_fn *fn);
#define UNIT_SUITE(fn)							\
	__attribute__((constructor)) static void unit_suite_ctor(void)	\
	{								\
		unit_suite_add(fn);					\
	}

/* The text of path (beneath dir), NUL-terminated, in text[len]. */
void unit_read_text(int dir, const char *path, char *text, size_t len);

/* Adds a suite with the given tests; 0 or -1 as CUnit wants. */
int add_suite(const char *name, const CU_TestInfo *tests);

/*
 * Adds a suite of tests, then of needy ones, which are skipped instead
 * (each said, and counted in *skipped) where why is not NULL.
 */
int add_suite_needing(const char *name, const CU_TestInfo *tests,
		      const CU_TestInfo *needy, const char *why,
		      unsigned int *skipped);

/*
 * Why openat2() cannot run here, or NULL: qemu-user (as Debian 12 ships it)
 * lacks it, which the cross-built tests run under.
 */
const char *unit_no_openat2(void);

/*
 * A test that cannot run here: CUnit has no skip, so it is left out and
 * said as "skip <suite>: <test> (<why>)", and counted in *skipped.
 */
void unit_skip(unsigned int *skipped, const char *suite, const char *test,
	       const char *why);

/*
 * A child running "sleep 30" with envp, once it has exec'd: under ASan a
 * child may not have yet, and its /proc/<pid>/environ is then ours.
 * unit_reap kills and reaps it.
 */
pid_t unit_spawn_sleep(char *const envp[]);
void unit_reap(pid_t pid);

/*
 * The process's peak RSS (VmHWM) in KiB; _reset starts it afresh from the
 * RSS now (clear_refs 5, Linux 4.0), so that an earlier test's peak cannot
 * hide a rise in this one's.
 */
long unit_peak_kib(void);
long unit_peak_reset(void);

#endif
