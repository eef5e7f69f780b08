// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl/options.h"
#include "unit.h"

static char err[256];

/* Parses a NULL-terminated argument list after "msprof". */
static int parse(struct msprof_opts *o, char **args)
{
	/* Static: opts_parse keeps pointers into argv. */
	static char *argv[16];
	int argc = 1;

	argv[0] = "msprof";
	while (*args)
		argv[argc++] = *args++;
	err[0] = '\0';
	return opts_parse(o, argc, argv, err, sizeof(err));
}

static void test_launch_trailing_app(void)
{
	char *args[] = { "--dynamic=on", "--output=/tmp/x", "./app", "--steps", "3", NULL };
	struct msprof_opts o;

	CU_ASSERT_EQUAL(parse(&o, args), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_LAUNCH);
	CU_ASSERT_STRING_EQUAL(o.output, "/tmp/x");
	CU_ASSERT_STRING_EQUAL(o.app_argv[0], "./app");
	/* The app's own options are not msprof's. */
	CU_ASSERT_STRING_EQUAL(o.app_argv[1], "--steps");
	CU_ASSERT_PTR_NULL(o.app_argv[3]);
	opts_free(&o);
}

static void test_launch_application_option(void)
{
	char *args[] = { "--dynamic=on", "--application=./app --steps 3", NULL };
	struct msprof_opts o;

	CU_ASSERT_EQUAL(parse(&o, args), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_LAUNCH);
	CU_ASSERT_STRING_EQUAL(o.app_argv[0], "./app");
	CU_ASSERT_STRING_EQUAL(o.app_argv[2], "3");
	CU_ASSERT_PTR_NULL(o.app_argv[3]);
	opts_free(&o);
}

static void test_attach_pids_collapse(void)
{
	char *args[] = { "--dynamic=on", "--pid=12,7,12", NULL };
	struct msprof_opts o;

	CU_ASSERT_EQUAL(parse(&o, args), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_ATTACH);
	CU_ASSERT_EQUAL(o.npids, 2);
	CU_ASSERT_EQUAL(o.pids[0], 12);
	CU_ASSERT_EQUAL(o.pids[1], 7);
	CU_ASSERT_STRING_EQUAL(o.output, ".");
	opts_free(&o);
}

static void expect_error(char **args, const char *needle)
{
	struct msprof_opts o;

	CU_ASSERT_EQUAL(parse(&o, args), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, needle));
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	opts_free(&o);
}

/* A stray comma is named, whichever list and wherever it is. */
static void test_empty_elements(void)
{
	char *pid_trailing[] = { "--dynamic=on", "--pid=5,", NULL };
	char *pid_leading[] = { "--dynamic=on", "--pid=,5", NULL };
	char *pid_double[] = { "--dynamic=on", "--pid=5,,6", NULL };
	char *pid_empty[] = { "--dynamic=on", "--pid=", NULL };
	char *uprobe_trailing[] = { "--dynamic=on", "--pid=5",
				    "--uprobe=libc:malloc,", NULL };
	char *uprobe_double[] = { "--dynamic=on", "--pid=5",
				  "--uprobe=libc:malloc,,libc:free", NULL };

	expect_error(pid_trailing, "--pid: element 2 of '5,' is empty");
	expect_error(pid_leading, "--pid: element 1 of ',5' is empty");
	expect_error(pid_double, "--pid: element 2 of '5,,6' is empty");
	expect_error(pid_empty, "--pid: element 1 of '' is empty");
	expect_error(uprobe_trailing,
		     "--uprobe: element 2 of 'libc:malloc,' is empty");
	expect_error(uprobe_double,
		     "--uprobe: element 2 of 'libc:malloc,,libc:free' is empty");
}

/* Each item has one lib and one function: probes.c splits on that alone. */
static void test_uprobe_items(void)
{
	char *no_func[] = { "--dynamic=on", "--pid=5", "--uprobe=libc:", NULL };
	char *no_lib[] = { "--dynamic=on", "--pid=5", "--uprobe=:free", NULL };
	char *no_colon[] = { "--dynamic=on", "--pid=5",
			     "--uprobe=libc:malloc,free", NULL };
	char *two_colons[] = { "--dynamic=on", "--pid=5",
			       "--uprobe=libc:malloc:free", NULL };
	char *good[] = { "--dynamic=on", "--pid=5",
			 "--uprobe=libc:malloc,libfoo.so.1:bar", NULL };
	struct msprof_opts o;

	expect_error(no_func, "--uprobe takes <lib>:<func>[,<lib>:<func>...], not 'libc:'");
	expect_error(no_lib, "--uprobe takes <lib>:<func>[,<lib>:<func>...], not ':free'");
	expect_error(no_colon, "not 'libc:malloc,free'");
	expect_error(two_colons, "not 'libc:malloc:free'");
	CU_ASSERT_EQUAL(parse(&o, good), 0);
	CU_ASSERT_STRING_EQUAL(o.uprobes, "libc:malloc,libfoo.so.1:bar");
	opts_free(&o);
}

static void test_errors(void)
{
	char *bad_switch[] = { "--dynamic=yes", "--pid=1", NULL };
	char *bad_pid[] = { "--dynamic=on", "--pid=1,x", NULL };
	char *neg_pid[] = { "--dynamic=on", "--pid=-4", NULL };
	char *both[] = { "--dynamic=on", "--pid=1", "./app", NULL };
	char *none[] = { "--output=/tmp", NULL };
	char *nothing[] = { "--dynamic=on", NULL };
	char *unknown[] = { "--dynamic=on", "--frobnicate=1", NULL };
	char *novalue[] = { "--dynamic", NULL };
	char *dollar[] = { "--dynamic=on", "--pid=1", "--output=/tmp/$HOME", NULL };
	char *newline[] = { "--dynamic=on", "--pid=1", "--output=/tmp/a\nb", NULL };
	char *escaped[] = { "--dynamic=on", "--pid=1", "--output=/tmp/a\\nb", NULL };

	expect_error(bad_switch, "--dynamic takes on or off");
	expect_error(bad_pid, "--pid takes process ids");
	expect_error(neg_pid, "--pid takes process ids");
	expect_error(both, "--pid cannot be combined");
	expect_error(none, "no mode given");
	expect_error(nothing, "needs an app");
	expect_error(unknown, "unknown option '--frobnicate=1'");
	expect_error(novalue, "needs a value");
	expect_error(dollar, "must not contain '$'");
	expect_error(newline, "control character 0x0a");
	expect_error(escaped, "must not contain '\\'");
}

static void test_msprof_switches(void)
{
	char *args[] = { "--dynamic=on", "--pid=3", "--runtime-api=on", "--ascendcl=off",
			 "--task-time=l1", "--buffer-size=3", "--idle-timeout=5",
			 "--host-only=on", NULL };
	char *defaults[] = { "--dynamic=on", "--pid=3", NULL };
	struct msprof_opts o;

	CU_ASSERT_EQUAL(parse(&o, defaults), 0);
	CU_ASSERT(o.ascendcl && o.task_time && !o.runtime_api && !o.hccl && !o.host_only);
	CU_ASSERT_EQUAL(o.idle_timeout_s, 1800);
	CU_ASSERT_EQUAL(o.ringbuf_bytes, 8u << 20);
	CU_ASSERT_EQUAL(parse(&o, args), 0);
	CU_ASSERT(o.runtime_api && !o.ascendcl && o.task_time && o.host_only);
	/* The kernel wants a power of two. */
	CU_ASSERT_EQUAL(o.ringbuf_bytes, 4u << 20);
	CU_ASSERT_EQUAL(o.idle_timeout_s, 5);
	args[5] = "--buffer-size=5K";
	CU_ASSERT_EQUAL(parse(&o, args), 0);
	CU_ASSERT_EQUAL(o.ringbuf_bytes, opts_ringbuf_size(5 << 10, (size_t)sysconf(_SC_PAGESIZE)));
}

/* Whole pages, however big: arm64 kernels may have 16 or 64 KiB ones. */
static void test_ringbuf_pages(void)
{
	CU_ASSERT_EQUAL(opts_ringbuf_size(5 << 10, 4096), 8192);
	CU_ASSERT_EQUAL(opts_ringbuf_size(4096, 4096), 4096);
	CU_ASSERT_EQUAL(opts_ringbuf_size(1, 4096), 4096);
	CU_ASSERT_EQUAL(opts_ringbuf_size(5 << 10, 65536), 65536);
	CU_ASSERT_EQUAL(opts_ringbuf_size(65537, 65536), 131072);
	CU_ASSERT_EQUAL(opts_ringbuf_size(3 << 20, 16384), 4u << 20);
	CU_ASSERT_EQUAL(opts_ringbuf_size(1u << 30, 65536), 1u << 30);
}

static void test_conflicts(void)
{
	char *delay[] = { "--dynamic=on", "--delay=3", "--pid=1", NULL };
	char *duration[] = { "--duration=10", "--dynamic=on", "./app", NULL };
	char *bad_delay[] = { "--dynamic=on", "--delay=0", "--pid=1", NULL };
	char *bad_buffer[] = { "--dynamic=on", "--buffer-size=12G", "--pid=1", NULL };
	char *host_only_launch[] = { "--dynamic=on", "--host-only=on", "./app", NULL };
	char *export_pid[] = { "--export=on", "--pid=1", NULL };

	expect_error(delay, "--dynamic=on cannot be combined with --delay");
	expect_error(duration, "--dynamic=on cannot be combined with --duration");
	expect_error(bad_delay, "--delay takes a whole number from 1 to 4294967295");
	expect_error(bad_buffer, "--buffer-size takes <N>[K|M]");
	expect_error(host_only_launch, "--host-only=on is for attach mode");
	expect_error(export_pid, "--export=on cannot be combined");
}

static void test_export_help_version(void)
{
	static char *exp[] = { "--export=on", "--output=/tmp/p", NULL };
	static char *help[] = { "--help", NULL };
	static char *version[] = { "--version", NULL };
	static char *both[] = { "--version", "--help", NULL };
	static const struct {
		char **args;
		enum msprof_mode mode;
	} cases[] = {
		{ exp, MSPROF_MODE_EXPORT },
		{ help, MSPROF_MODE_HELP },
		{ version, MSPROF_MODE_VERSION },
		{ both, MSPROF_MODE_HELP },
	};
	struct msprof_opts o;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CU_ASSERT_EQUAL(parse(&o, cases[i].args), 0);
		CU_ASSERT_EQUAL(o.mode, cases[i].mode);
		opts_free(&o);
	}
}

/*
 * True if text names the option: "--" and name, spelled with dash as a
 * dash is spelled there ("-" or roff's "\-"), and not a longer name.
 */
static bool names_option(const char *text, const char *name, const char *dash)
{
	char needle[128] = "";
	const char *p, *end;
	size_t i;

	strcat(needle, dash);
	strcat(needle, dash);
	for (i = 0; name[i]; i++) {
		if (name[i] == '-')
			strcat(needle, dash);
		else
			strncat(needle, &name[i], 1);
	}
	for (p = strstr(text, needle); p; p = strstr(p + 1, needle)) {
		end = p + strlen(needle);
		if (!isalnum((unsigned char)*end) && strncmp(end, dash, strlen(dash)))
			return true;
	}
	return false;
}

/* Reads all of path, NUL-terminated; NULL if it cannot. */
static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int c;

	if (!fp)
		return NULL;
	mem = open_memstream(&buf, &len);
	while (mem && (c = fgetc(fp)) != EOF)
		fputc(c, mem);
	if (mem)
		fclose(mem);
	fclose(fp);
	return buf;
}

/* The man page and --help cannot drift from the parser. */
static void test_every_option_documented(void)
{
	char *man = slurp("docs/msprof.1"), *help = NULL;
	size_t len = 0, i;
	const char *name;
	FILE *mem;

	CU_ASSERT_PTR_NOT_NULL_FATAL(man);
	mem = open_memstream(&help, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
	opts_usage(mem);
	fclose(mem);
	for (i = 0; (name = opts_name(i)); i++) {
		if (!names_option(man, name, "\\-"))
			printf("\n  --%s is not in docs/msprof.1", name);
		CU_ASSERT(names_option(man, name, "\\-"));
		if (!names_option(help, name, "-"))
			printf("\n  --%s is not in --help", name);
		CU_ASSERT(names_option(help, name, "-"));
	}
	CU_ASSERT(i >= 20);
	free(man);
	free(help);
}

static void test_type(void)
{
	char *db[] = { "--export=on", "--type=db", "--output=/tmp/x", NULL };
	char *text[] = { "--export=on", "--type=text", NULL };
	char *none[] = { "--export=on", NULL };
	struct msprof_opts o;

	CU_ASSERT_EQUAL(parse(&o, db), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_EXPORT);
	CU_ASSERT(o.db);
	CU_ASSERT_EQUAL(parse(&o, text), 0);
	CU_ASSERT(!o.db);
	CU_ASSERT_EQUAL(parse(&o, none), 0);
	CU_ASSERT(!o.db);
}

static void test_type_errors(void)
{
	char *bad[] = { "--export=on", "--type=csv", NULL };
	char *empty[] = { "--export=on", "--type=", NULL };
	char *alone[] = { "--type=db", NULL };
	char *dyn[] = { "--dynamic=on", "--pid=1", "--type=db", NULL };

	expect_error(bad, "--type takes text or db, not 'csv'");
	expect_error(empty, "--type takes text or db, not ''");
	expect_error(alone, "--type=db goes with --export=on");
	expect_error(dyn, "--type=db goes with --export=on");
}

static void test_query(void)
{
	char *q[] = { "--query=on", "--output=/tmp/x", NULL };
	char *off[] = { "--query=off", "--export=on", NULL };
	char *exp[] = { "--query=on", "--export=on", NULL };
	char *pid[] = { "--query=on", "--dynamic=on", "--pid=3", NULL };
	char *bad[] = { "--query=yes", NULL };
	struct msprof_opts o;

	CU_ASSERT_EQUAL(parse(&o, q), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_QUERY);
	CU_ASSERT_STRING_EQUAL(o.output, "/tmp/x");
	CU_ASSERT_EQUAL(parse(&o, off), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_EXPORT);
	expect_error(exp, "--query=on cannot be combined with --export");
	expect_error(pid, "--query=on cannot be combined");
	expect_error(bad, "--query takes on or off, not 'yes'");
}

static void test_analyze(void)
{
	char *a[] = { "--analyze=on", "--output=/tmp/x", NULL };
	char *off[] = { "--analyze=off", "--export=on", NULL };
	char *exp[] = { "--analyze=on", "--export=on", NULL };
	char *pid[] = { "--analyze=on", "--dynamic=on", "--pid=3", NULL };
	char *app[] = { "--analyze=on", "true", NULL };
	char *type[] = { "--analyze=on", "--type=db", NULL };
	char *query[] = { "--analyze=on", "--query=on", NULL };
	char *bad[] = { "--analyze=1", NULL };
	struct msprof_opts o;

	CU_ASSERT_EQUAL(parse(&o, a), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_ANALYZE);
	CU_ASSERT_STRING_EQUAL(o.output, "/tmp/x");
	CU_ASSERT_EQUAL(parse(&o, off), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_EXPORT);
	expect_error(exp, "--analyze=on cannot be combined with --export, --dynamic, --pid or an app");
	expect_error(pid, "--analyze=on cannot be combined");
	expect_error(app, "--analyze=on cannot be combined");
	expect_error(type, "--type=db goes with --export=on");
	expect_error(query, "--query=on cannot be combined with --export, --analyze");
	expect_error(bad, "--analyze takes on or off, not '1'");
}

int register_options_tests(void)
{
	static const CU_TestInfo tests[] = {
		{ "launch mode with trailing app", test_launch_trailing_app },
		{ "launch mode with --application", test_launch_application_option },
		{ "attach mode, duplicate pids collapsed", test_attach_pids_collapse },
		{ "empty list elements named", test_empty_elements },
		{ "--uprobe items are <lib>:<func>", test_uprobe_items },
		{ "bad input is one line naming the problem", test_errors },
		{ "export, help and version modes", test_export_help_version },
		{ "msprof's switches and our own", test_msprof_switches },
		{ "ring buffer: a power of two of whole pages", test_ringbuf_pages },
		{ "options that cannot go together", test_conflicts },
		{ "every option in the man page and --help", test_every_option_documented },
		{ "--type=db and --type=text", test_type },
		{ "--type: bad values, without --export", test_type_errors },
		{ "--query=on and what it cannot go with", test_query },
		{ "--analyze=on and what it cannot go with", test_analyze },
		CU_TEST_INFO_NULL,
	};

	return add_suite("options", tests);
}
