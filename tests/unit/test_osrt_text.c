// SPDX-License-Identifier: MIT
/*
 * host_syscall.data's and host_pthreadcall.data's lines (user/common/
 * osrt_text.c): what the writers make, and that the parsers read it, and
 * others' lines, as Huawei's analysis does (host-sys-formats.md §3.5).
 */
#include <string.h>

#include "common/osrt_text.h"
#include "unit.h"

static const uint64_t args[6] = { 3, 0x7ffd1000, 1, 0, 0, 0 };

static void parse_perf(const char *line, struct osrt_parsed *p)
{
	osrt_parse_perf(line, strlen(line), 4e9, p);
}

static void parse_ltrace(const char *line, struct osrt_parsed *p)
{
	osrt_parse_ltrace(line, strlen(line), p);
}

static bool named(const struct osrt_parsed *p, const char *name)
{
	return p->name && p->name_len == strlen(name) &&
	       !memcmp(p->name, name, p->name_len);
}

static bool tid_is(const struct osrt_parsed *p, const char *tid)
{
	return p->tid && p->tid_len == strlen(tid) &&
	       !memcmp(p->tid, tid, p->tid_len);
}

static void test_perf_line(void)
{
	struct osrt_line_call c = {
		.raw_ns = 1000010500499ull, .dur_ns = 1250500, .who = "python3",
		.tid = 12345, .name = "write", .args = args, .nargs = 6, .ret = -11,
	};
	char buf[OSRT_LINE_MAX + 1];
	struct osrt_parsed p;
	size_t n = osrt_perf_line(buf, &c);

	buf[n] = '\0';
	/* µs rounded, halves up. */
	CU_ASSERT_STRING_EQUAL(buf, "1000010.500 (1.251 ms): python3/12345 write(a0: 0x3, "
			       "a1: 0x7ffd1000, a2: 0x1, a3: 0x0, a4: 0x0, a5: 0x0) = -11\n");
	parse_perf(buf, &p);
	CU_ASSERT(p.timed && p.kept);
	CU_ASSERT(named(&p, "write"));
	CU_ASSERT(tid_is(&p, "12345"));
	CU_ASSERT_EQUAL(p.dur_ns, 1.251 * 1000.0 * 1000);
	/* A call without arguments still names one: the analysis wants it. */
	c.nargs = 0;
	c.name = "sched_yield";
	buf[osrt_perf_line(buf, &c)] = '\0';
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, " sched_yield(a0: 0) = -11\n"));
	parse_perf(buf, &p);
	CU_ASSERT(p.kept && named(&p, "sched_yield"));
	/* The longest line fits. */
	c.who = "0123456789abcdefXXXX";
	c.name = "a_name_of_sixty_four_characters_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaXXX";
	c.nargs = 6;
	c.raw_ns = c.dur_ns = UINT64_MAX;
	c.ret = INT64_MIN;
	CU_ASSERT(osrt_perf_line(buf, &c) <= OSRT_LINE_MAX);
}

static void test_perf_filter(void)
{
	struct osrt_parsed p;

	/* Kept by substring: creat in timerfd_create, read in readlinkat. */
	parse_perf("1.000 (0.001 ms): a/1 timerfd_create(a0: 0) = 3", &p);
	CU_ASSERT(p.kept);
	parse_perf("1.000 (0.001 ms): a/1 readlinkat(a0: 0) = 3", &p);
	CU_ASSERT(p.kept);
	parse_perf("1.000 (0.001 ms): a/1 close(a0: 0) = 0", &p);
	CU_ASSERT(p.timed && !p.kept);
	parse_perf("1.000 (0.001 ms): a/1 getppid(a0: 0) = 1", &p);
	CU_ASSERT(p.timed && !p.kept);
	CU_ASSERT(osrt_msprof_keeps("clock_nanosleep", 15));
	CU_ASSERT(!osrt_msprof_keeps("clone3", 6));
	CU_ASSERT(!osrt_msprof_keeps("exit_group", 10));
	CU_ASSERT(!osrt_msprof_keeps("", 0));
}

/* Lines of perf's own that the analysis passes over, and odd ones. */
static void test_perf_quirks(void)
{
	struct osrt_parsed p;

	parse_perf("     ? (         ): a/1  ... [continued]: futex()) = 0", &p);
	CU_ASSERT(!p.timed);
	parse_perf("1.000 (0.001 ms): a/1 sched_yield() = 0", &p);
	CU_ASSERT(p.timed && !p.kept);	/* no argument: no name token */
	parse_perf("1.000 (0.001 ms): a b/1 write(fd: 1) = 1", &p);
	CU_ASSERT(p.timed && !p.kept);	/* a blank in the name: three tokens */
	/* No '/': the task's own call, named by its first token. */
	parse_perf("2.500 (1.000 ms): write(fd: 1) = 1", &p);
	CU_ASSERT(p.kept && named(&p, "write") && !p.tid);
	/* Two blanks before '(' in the time part: not a time. */
	parse_perf("1.000 ( 0.001 ms) (x): a/1 write(fd: 1) = 1", &p);
	CU_ASSERT(!p.timed);
	/* The time as a regex match takes its start only. */
	parse_perf("  7.25e3 (0.5xyz ms): a/99/x write(fd: 1) = 1\r", &p);
	CU_ASSERT(p.kept && tid_is(&p, "99"));
	CU_ASSERT_EQUAL(p.dur_ns, 0.5 * 1000.0 * 1000);
	/* A call that ends after now is dropped. */
	osrt_parse_perf("9000000.000 (1.000 ms): a/1 write(fd: 1) = 1", 43, 100, &p);
	CU_ASSERT(p.timed && !p.kept);
	parse_perf("", &p);
	CU_ASSERT(!p.timed);
}

static void test_ltrace_line(void)
{
	struct osrt_line_call c = {
		.raw_ns = 1000005100000ull, .dur_ns = 230000, .who = "npu_sample",
		.tid = 77, .name = "pthread_create", .args = args, .nargs = 4, .ret = 0,
	};
	char buf[OSRT_LINE_MAX + 1];
	struct osrt_parsed p;

	buf[osrt_ltrace_line(buf, &c)] = '\0';
	CU_ASSERT_STRING_EQUAL(buf, "[pid 77] 1000.005100 npu_sample->pthread_create(0x3, "
			       "0x7ffd1000, 0x1, 0x0) = 0 <0.000230>\n");
	parse_ltrace(buf, &p);
	CU_ASSERT(p.timed && p.kept && named(&p, "pthread_create") && tid_is(&p, "77"));
	CU_ASSERT_EQUAL(p.dur_ns, 0.000230 * 1e9);
	/* ltrace's resumed lines: the name is the fifth token. */
	parse_ltrace("[pid 5] 1.000001 <... pthread_join resumed> ) = 0 <0.010000>", &p);
	CU_ASSERT(p.kept && named(&p, "pthread_join"));
	parse_ltrace("[pid 5] 1.000001 libc.so->pthread_join(0x1, 0 <unfinished ...>", &p);
	CU_ASSERT(!p.timed);
	parse_ltrace("[pid 5] x1.0 a->pthread_join(0x1) = 0 <0.1>", &p);
	CU_ASSERT(!p.timed);
}

static void test_sentinels(void)
{
	char buf[OSRT_LINE_MAX + 1];
	struct osrt_parsed p;

	buf[osrt_perf_sentinel(buf, 1000001234567ull, "python3", 42)] = '\0';
	CU_ASSERT_STRING_EQUAL(buf, "1000001.234567 (0.000 ms): python3/42 getpid(dummy: 0) = 42\n");
	parse_perf(buf, &p);
	CU_ASSERT(p.timed && !p.kept);
	buf[osrt_ltrace_sentinel(buf, 1000001234567ull, "python3", 42)] = '\0';
	CU_ASSERT_STRING_EQUAL(buf, "[pid 42] 1000.001234567 python3->pthread_once(0x1, 0x2) = 0 <0.000000>\n");
	parse_ltrace(buf, &p);
	CU_ASSERT(p.timed && !p.kept);
}

static void test_clean_name(void)
{
	char out[OSRT_COMM_MAX];

	osrt_clean_name(out, "pt main:0/x(y)", 16);
	CU_ASSERT_STRING_EQUAL(out, "pt_main_0_x_y_");
	osrt_clean_name(out, "", 16);
	CU_ASSERT_STRING_EQUAL(out, "?");
	osrt_clean_name(out, "\xff\xfe" "0123456789abcdefgh", 20);
	CU_ASSERT_STRING_EQUAL(out, "__0123456789abc");
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "perf lines: written, read back", test_perf_line },
		{ "perf lines: msprof's names, by substring", test_perf_filter },
		{ "perf lines: what the analysis passes over", test_perf_quirks },
		{ "ltrace lines: written, read back, resumed", test_ltrace_line },
		{ "sentinels: exact times, never a row", test_sentinels },
		{ "names: one token, no separator", test_clean_name },
		CU_TEST_INFO_NULL,
	};

	return add_suite("osrt_text", tests);
}
UNIT_SUITE(register_tests)
