/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_UNIT_H
#define MSPROF_UNIT_H

#include <CUnit/CUnit.h>

/* Each test file registers its suite. */
int register_options_tests(void);
int register_profdir_tests(unsigned int *skipped);
int register_recfile_tests(void);
int register_growarr_tests(void);
int register_profdata_tests(unsigned int *skipped);
int register_outbuf_tests(void);
int register_timeline_tests(unsigned int *skipped);
int register_protocol_tests(void);
int register_elfsym_tests(void);
int register_agent_tests(void);
int register_kfeatures_tests(void);
int register_agent_path_tests(void);
int register_db_tests(unsigned int *skipped);
/* The text of path (beneath dir), NUL-terminated, in text[len]. */
void unit_read_text(int dir, const char *path, char *text, size_t len);
int register_summary_tests(void);
int register_params_tests(unsigned int *skipped);
int register_layout_tests(unsigned int *skipped);
/* Tests that cannot run here are not registered but counted in *skipped. */
int register_cupti_tests(unsigned int *skipped);
int register_probe_packs_tests(void);
int register_tasklist_tests(unsigned int *skipped);
int register_hccl_reduce_tests(void);
int register_start_at_tests(void);
int register_line_input_tests(void);
int register_procread_tests(void);
int register_fsutil_tests(unsigned int *skipped);
int register_cann_tests(unsigned int *skipped);
int register_cann_trace_tests(unsigned int *skipped);

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
 * The process's peak RSS (VmHWM) in KiB; _reset starts it afresh from the
 * RSS now (clear_refs 5, Linux 4.0), so that an earlier test's peak cannot
 * hide a rise in this one's.
 */
long unit_peak_kib(void);
long unit_peak_reset(void);

#endif
