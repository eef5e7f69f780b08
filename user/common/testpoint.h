/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_TESTPOINT_H
#define MSPROF_TESTPOINT_H

/*
 * Deterministic fault injection for tests/e2e/test_faults.sh: with
 * MSPROF_TEST_PAUSE=<step> in its environment, msprof stops at that named
 * step, says "msprof: test pause at <step>" on stderr and waits (60 s at
 * most, then goes on), so that a test can SIGKILL it exactly there.
 * Common code because fsutil.c's atomic replace has a step; the agent links
 * it too but never arms it: only msprof's main calls testpoint_init(),
 * which also reads MSPROF_TEST_LIMITS (testpoint_limit()).
 */

/* Reads MSPROF_TEST_PAUSE; main calls it once, before anything else runs. */
void testpoint_init(void);
/* Pauses if step is the one asked for; costs a NULL test otherwise. */
void testpoint(const char *step);
/*
 * A limit the tests lower to reach it without filling a disk or making
 * 65536 files: MSPROF_TEST_LIMITS=<name>=<n>[,<name>=<n>...] (stage_bytes,
 * stage_files, stage_file_bytes, collect_bytes).  def, or the value given
 * for name where it is lower: a limit is never raised.
 */
unsigned long long testpoint_limit(const char *name, unsigned long long def);

#endif
