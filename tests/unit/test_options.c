// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl/options.h"
#include "msprof/probe_packs.h"
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
	argv[argc] = NULL;	/* as main()'s: the app's arguments end there */
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

static void test_control_collect(void)
{
	char *ctl[] = { "--dynamic=on", "--pid=3", "--control=/tmp/m.%h.ctl", NULL };
	char *ctl_export[] = { "--export=on", "--control=/tmp/c", NULL };
	char *ctl_empty[] = { "--dynamic=on", "--pid=3", "--control=", NULL };
	char *col[] = { "--collect=/tmp/cl", "/n1", "/n2", NULL };
	char *col_none[] = { "--collect=/tmp/cl", NULL };
	char *col_dyn[] = { "--collect=/tmp/cl", "--dynamic=on", "/n1", NULL };
	char *col_bad[] = { "--collect=/tmp/a;b", "/n1", NULL };
	struct msprof_opts o;

	CU_ASSERT_EQUAL(parse(&o, ctl), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_ATTACH);
	CU_ASSERT_STRING_EQUAL(o.control, "/tmp/m.%h.ctl");
	expect_error(ctl_export, "--control goes with --dynamic=on");
	expect_error(ctl_empty, "--control needs a path");
	CU_ASSERT_EQUAL(parse(&o, col), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_COLLECT);
	CU_ASSERT_STRING_EQUAL(o.collect, "/tmp/cl");
	CU_ASSERT_STRING_EQUAL(o.app_argv[1], "/n2");
	CU_ASSERT_PTR_NULL(o.app_argv[2]);
	expect_error(col_none, "needs the directories to collect from");
	expect_error(col_dyn, "--collect cannot be combined");
	expect_error(col_bad, "must not contain ';'");
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

#define NR(a) (sizeof(a) / sizeof(a[0]))

/* Each value after "--dynamic=on --pid=3 --<option>=" is refused, quoted. */
static void test_values_refused(void)
{
	static const char *const pid[] = {
		" 5", "5 ", "+5", "0", "00", "1,0", "0x10", "1e3", "5,-6",
		"2147483648", "99999999999999999999", "5;6", "5 6", "x",
	};
	static const char *const buffer[] = {
		"0", "0K", "0M", "-1", "5k", "5KB", "5G", " 5", "", "K",
		"18446744073709551617", "1073741825",
	};
	static const char *const big[] = { "1025", "1048577K", "1073741824" };
	static const char *const idle[] = {
		"0", "-1", "+5", "5s", "", " 5", "604801", "4294967297",
		"18446744073709551616",
	};
	static const char *const uprobe[] = {
		"lib:", ":f", "libf", "a:b:c", ":", "a::b", "a:b,c", "a:b,:c",
		"a:b,c:",
	};
	static const struct {
		const char *option;
		const char *const *vals;
		size_t n;
		const char *says;	/* %s: the value */
	} cases[] = {
		{ "pid", pid, NR(pid), "--pid takes process ids separated by commas, not '%s'" },
		{ "buffer-size", buffer, NR(buffer), "--buffer-size takes <N>[K|M] (megabytes without a suffix), not '%s'" },
		{ "buffer-size", big, NR(big), "--buffer-size: at most 1024M, not '%s'" },
		{ "idle-timeout", idle, NR(idle), "--idle-timeout takes a whole number from 1 to 604800, not '%s'" },
		{ "uprobe", uprobe, NR(uprobe), "--uprobe takes <lib>:<func>[,<lib>:<func>...], not '%s'" },
	};
	char opt[128], want[192];
	char *args[] = { "--dynamic=on", "--pid=3", opt, NULL };
	size_t i, j;

	for (i = 0; i < NR(cases); i++)
		for (j = 0; j < cases[i].n; j++) {
			snprintf(opt, sizeof(opt), "--%s=%s", cases[i].option, cases[i].vals[j]);
			snprintf(want, sizeof(want), cases[i].says, cases[i].vals[j]);
			expect_error(args, want);
			if (!strstr(err, want))
				printf("\n  %s: '%s', not '%s'", opt, err, want);
		}
}

static void test_pid_values(void)
{
	char *twice[] = { "--dynamic=on", "--pid=1", "--pid", "1", "--pid=2,1", NULL };
	char *biggest[] = { "--dynamic=on", "--pid=2147483647,007", NULL };
	struct msprof_opts o;

	/* Lists add up, as separate arguments too; repeats count once. */
	CU_ASSERT_EQUAL_FATAL(parse(&o, twice), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_ATTACH);
	CU_ASSERT_EQUAL(o.npids, 2);
	CU_ASSERT(o.pids[0] == 1 && o.pids[1] == 2);
	CU_ASSERT_EQUAL_FATAL(parse(&o, biggest), 0);
	CU_ASSERT_EQUAL(o.npids, 2);
	CU_ASSERT(o.pids[0] == 2147483647 && o.pids[1] == 7);
}

/* MSPROF_MAX_PIDS processes, however given; one more is refused. */
static void test_pid_limit(void)
{
	static char full[MSPROF_MAX_PIDS * 4 + 8], again[] = "--pid=64,1",
		    more[] = "--pid=65";
	char *max[] = { "--dynamic=on", full, NULL };
	char *repeat[] = { "--dynamic=on", full, again, NULL };
	char *over[] = { "--dynamic=on", full, more, NULL };
	char *over_one[] = { "--dynamic=on", full, NULL };
	struct msprof_opts o;
	size_t len;
	int i;

	len = (size_t)snprintf(full, sizeof(full), "--pid=1");
	for (i = 2; i <= MSPROF_MAX_PIDS; i++)
		len += (size_t)snprintf(full + len, sizeof(full) - len, ",%d", i);
	CU_ASSERT_EQUAL_FATAL(parse(&o, max), 0);
	CU_ASSERT_EQUAL(o.npids, MSPROF_MAX_PIDS);
	CU_ASSERT_EQUAL(o.pids[MSPROF_MAX_PIDS - 1], MSPROF_MAX_PIDS);
	CU_ASSERT_EQUAL(parse(&o, repeat), 0);
	CU_ASSERT_EQUAL(o.npids, MSPROF_MAX_PIDS);
	expect_error(over, "--pid: at most 64 processes");
	snprintf(full + len, sizeof(full) - len, ",%d", MSPROF_MAX_PIDS + 1);
	expect_error(over_one, "--pid: at most 64 processes");
}

static void test_buffer_size_values(void)
{
	static const struct {
		char *arg;
		unsigned long long bytes;
	} good[] = {
		{ "--buffer-size=1K", 1 << 10 },
		{ "--buffer-size=3M", 3 << 20 },
		{ "--buffer-size=3", 3 << 20 },
		{ "--buffer-size=1024", 1ull << 30 },
		{ "--buffer-size=1048576K", 1ull << 30 },
		{ "--buffer-size=4097K", 4097ull << 10 },
	};
	size_t page = (size_t)sysconf(_SC_PAGESIZE), i;
	char *sep[] = { "--dynamic=on", "--pid=3", "--buffer-size", "2", NULL };
	struct msprof_opts o;

	for (i = 0; i < NR(good); i++) {
		char *args[] = { "--dynamic=on", "--pid=3", good[i].arg, NULL };

		CU_ASSERT_EQUAL_FATAL(parse(&o, args), 0);
		CU_ASSERT_EQUAL(o.ringbuf_bytes, opts_ringbuf_size(good[i].bytes, page));
		CU_ASSERT(o.ringbuf_bytes >= good[i].bytes);
	}
	CU_ASSERT_EQUAL_FATAL(parse(&o, sep), 0);
	CU_ASSERT_EQUAL(o.ringbuf_bytes, opts_ringbuf_size(2 << 20, page));
}

/* The smallest power of two of whole pages that holds the bytes. */
static void test_ringbuf_rounding(void)
{
	static const size_t pages[] = { 4096, 16384, 65536 };
	static const unsigned long long sizes[] = {
		0, 1, 4095, 4096, 4097, 12288, 65535, 65536, 65537,
		(3ull << 20) + 1, (1ull << 30) - 1, 1ull << 30,
	};
	size_t i, j;

	for (i = 0; i < NR(pages); i++)
		for (j = 0; j < NR(sizes); j++) {
			size_t got = opts_ringbuf_size(sizes[j], pages[i]);

			CU_ASSERT_EQUAL(got & (got - 1), 0);
			CU_ASSERT_EQUAL(got % pages[i], 0);
			CU_ASSERT(got >= sizes[j] && got >= pages[i]);
			/* Not a size bigger than it needs: half of it would not do. */
			CU_ASSERT(got == pages[i] || got / 2 < sizes[j]);
		}
}

static void test_idle_timeout_values(void)
{
	char *low[] = { "--dynamic=on", "--pid=3", "--idle-timeout=1", NULL };
	char *high[] = { "--dynamic=on", "--pid=3", "--idle-timeout", "604800", NULL };
	struct msprof_opts o;

	CU_ASSERT_EQUAL(parse(&o, low), 0);
	CU_ASSERT_EQUAL(o.idle_timeout_s, 1);
	CU_ASSERT_EQUAL(parse(&o, high), 0);
	CU_ASSERT_EQUAL(o.idle_timeout_s, 7 * 24 * 3600);
}

static void test_uprobe_specs(void)
{
	char *good[] = { "--dynamic=on", "--pid=3", "--uprobe=libc.so.6:malloc,libm:sin", NULL };
	char *twice[] = { "--dynamic=on", "--pid=3", "--uprobe=a:b", "--uprobe=c:d", NULL };
	struct msprof_opts o;

	CU_ASSERT_EQUAL_FATAL(parse(&o, good), 0);
	CU_ASSERT_STRING_EQUAL(o.uprobes, "libc.so.6:malloc,libm:sin");
	/* The first list was dropped without a word once. */
	expect_error(twice, "--uprobe given twice");
}

/* An empty value is refused by name, whichever option has it. */
static void test_empty_values(void)
{
	static const struct {
		char *arg;
		const char *says;
	} cases[] = {
		{ "--ascendcl=", "--ascendcl takes on or off, not ''" },
		{ "--task-time=", "--task-time takes on or off, not ''" },
		{ "--output=", "--output needs a directory" },
		{ "--uprobe=", "--uprobe: element 1 of '' is empty" },
		{ "--delay=", "--delay takes a whole number from 1 to 4294967295, not ''" },
	};
	char *app_empty[] = { "--dynamic=on", "--application=", NULL };
	char *app_blank[] = { "--dynamic=on", "--application= \t ", NULL };
	size_t i;

	for (i = 0; i < NR(cases); i++) {
		char *args[] = { "--dynamic=on", "--pid=3", cases[i].arg, NULL };

		expect_error(args, cases[i].says);
	}
	expect_error(app_empty, "--application is empty");
	expect_error(app_blank, "--application is empty");
}

/* The last of a switch or --output counts; a list or an app only once. */
static void test_repeated(void)
{
	char *last[] = { "--dynamic=on", "--pid=3", "--output=/a", "--output", "/b",
			 "--ascendcl=off", "--ascendcl=on", "--task-time=l0",
			 "--task-time=on", "--idle-timeout=9", "--idle-timeout=8", NULL };
	char *off_again[] = { "--dynamic=on", "--dynamic=off", "--pid=3", NULL };
	char *app_twice[] = { "--dynamic=on", "--application=./a", "--application=./b", NULL };
	char *app_both[] = { "--dynamic=on", "--application=./a", "./b", NULL };
	struct msprof_opts o;

	CU_ASSERT_EQUAL_FATAL(parse(&o, last), 0);
	CU_ASSERT_STRING_EQUAL(o.output, "/b");
	CU_ASSERT(o.ascendcl && o.task_time);
	CU_ASSERT_STRING_EQUAL(o.prof_level, "l1");
	CU_ASSERT_EQUAL(o.idle_timeout_s, 8);
	expect_error(off_again, "no mode given");
	expect_error(app_twice, "--application given twice");
	expect_error(app_both, "either as --application or as trailing arguments");
}

/* Options msprof has not, or spelled so that they could hide others. */
static void test_unknown_options(void)
{
	char *short_opt[] = { "--dynamic=on", "-x", NULL };
	char *cluster[] = { "--dynamic=on", "-xy", "--pid=3", NULL };
	char *value_on_flag[] = { "--help=3", NULL };
	char *newline[] = { "--dynamic=on", "--fr\nob\x1b[2J", NULL };
	char *no_value[] = { "--dynamic=on", "--pid", NULL };
	char *after_dashes[] = { "--dynamic=on", "--", "--pid=3", NULL };
	struct msprof_opts o;

	expect_error(short_opt, "unknown option '-x'");
	/* Named as given, not as the argument before it. */
	expect_error(cluster, "unknown option '-x'");
	CU_ASSERT_PTR_NULL(strstr(err, "dynamic"));
	expect_error(value_on_flag, "'--help=3'");
	/* What the user typed is quoted, its control bytes made inert. */
	expect_error(newline, "unknown option '--fr?ob?[2J'");
	expect_error(no_value, "option '--pid' needs a value");
	/* After "--" everything is the app's, even what looks like ours. */
	CU_ASSERT_EQUAL_FATAL(parse(&o, after_dashes), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_LAUNCH);
	CU_ASSERT_STRING_EQUAL(o.app_argv[0], "--pid=3");
	CU_ASSERT_EQUAL(o.npids, 0);
}

/* Modes that exclude each other; --help and --version win over them. */
static void test_mode_conflicts(void)
{
	char *dyn_export[] = { "--dynamic=on", "--pid=3", "--export=on", NULL };
	char *export_app[] = { "--export=on", "./app", NULL };
	char *pid_alone[] = { "--pid=3", NULL };
	char *help_wins[] = { "--dynamic=on", "--pid=1", "--export=on", "--help", "./app", NULL };
	char *version_wins[] = { "--query=on", "--export=on", "--version", NULL };
	char *help_bad[] = { "--help", "--pid=x", NULL };
	struct msprof_opts o;

	expect_error(dyn_export, "--export=on cannot be combined with --dynamic, --pid or an app");
	expect_error(export_app, "--export=on cannot be combined");
	expect_error(pid_alone, "no mode given");
	CU_ASSERT_EQUAL(parse(&o, help_wins), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_HELP);
	CU_ASSERT_EQUAL(parse(&o, version_wins), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_VERSION);
	/* A bad value is bad even beside --help. */
	expect_error(help_bad, "--pid takes process ids");
}

/* Launch mode follows children unless told; attach mode only if told. */
static void test_follow_children(void)
{
	char *launch[] = { "--dynamic=on", "./app", NULL };
	char *launch_off[] = { "--dynamic=on", "--follow-children=off", "./app", NULL };
	char *attach[] = { "--dynamic=on", "--pid=3", NULL };
	char *attach_on[] = { "--dynamic=on", "--pid=3", "--follow-children=on", NULL };
	struct msprof_opts o;

	CU_ASSERT_EQUAL(parse(&o, launch), 0);
	CU_ASSERT(o.follow_children);
	CU_ASSERT_EQUAL(parse(&o, launch_off), 0);
	CU_ASSERT_FALSE(o.follow_children);
	CU_ASSERT_EQUAL(parse(&o, attach), 0);
	CU_ASSERT_FALSE(o.follow_children);
	CU_ASSERT_EQUAL(parse(&o, attach_on), 0);
	CU_ASSERT(o.follow_children);
}

static void test_layers(void)
{
	char *defaults[] = { "--dynamic=on", "--pid=3", NULL };
	char *all[] = { "--dynamic=on", "--pid=3", "--runtime-api=on", "--hccl=on", NULL };
	char *none[] = { "--dynamic=on", "--pid=3", "--ascendcl=off", NULL };
	char *tx[] = { "--dynamic=on", "--pid=3", "--msproftx=on", NULL };
	char *osrt[] = { "--dynamic=on", "--pid=3", "--host-sys=cpu,osrt", NULL };
	char *cpu[] = { "--dynamic=on", "--pid=3", "--host-sys=cpu", NULL };
	const unsigned int custom = 1u << MSPROF_LAYER_CUSTOM;
	const unsigned int acl = 1u << MSPROF_LAYER_ACL | 1u << MSPROF_LAYER_CUDA_RUNTIME;
	const unsigned int rt = 1u << MSPROF_LAYER_RUNTIME | 1u << MSPROF_LAYER_CUDA_DRIVER;
	struct msprof_opts o;

	CU_ASSERT_EQUAL(parse(&o, defaults), 0);
	CU_ASSERT_EQUAL(opts_layers(&o), custom | acl);
	CU_ASSERT_EQUAL(parse(&o, all), 0);
	CU_ASSERT_EQUAL(opts_layers(&o), custom | acl | rt | 1u << MSPROF_LAYER_HCCL);
	/* --uprobe's functions are probed whatever the switches say. */
	CU_ASSERT_EQUAL(parse(&o, none), 0);
	CU_ASSERT_EQUAL(opts_layers(&o), custom);
	/* User marks only with --msproftx=on, msprof's default being off. */
	CU_ASSERT_EQUAL(parse(&o, tx), 0);
	CU_ASSERT_EQUAL(opts_layers(&o), custom | acl | 1u << MSPROF_LAYER_MSTX);
	/* libc's pthread calls only with osrt. */
	CU_ASSERT_EQUAL(parse(&o, osrt), 0);
	CU_ASSERT_EQUAL(opts_layers(&o), custom | acl | 1u << MSPROF_LAYER_OSRT);
	CU_ASSERT_EQUAL(parse(&o, cpu), 0);
	CU_ASSERT_EQUAL(opts_layers(&o), custom | acl);
}

static void test_list(void)
{
	char *alone[] = { "--list", NULL };
	char *with_pid[] = { "--list", "--pid=3", NULL };
	char *after_output[] = { "--output=/tmp", "--list", NULL };
	char *with_app[] = { "--list", "./app", NULL };
	char *with_query[] = { "--query=on", "--list", NULL };
	char *help[] = { "--list", "--help", NULL };
	struct msprof_opts o;

	CU_ASSERT_EQUAL(parse(&o, alone), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_LIST);
	expect_error(with_pid, "--list takes no other option (--pid given)");
	expect_error(after_output, "--list takes no other option (--output given)");
	expect_error(with_app, "--list takes no other option (an app given)");
	expect_error(with_query, "--list takes no other option (--query given)");
	CU_ASSERT_EQUAL(parse(&o, help), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_HELP);
}

static void test_job(void)
{
	char *job[] = { "--dynamic=on", "--job=42", NULL };
	char *with_pids[] = { "--dynamic=on", "--job=42", "--pid=7,9", NULL };
	char *twice[] = { "--dynamic=on", "--job=42", "--job=43", NULL };
	char *bad[] = { "--dynamic=on", "--job=4x", NULL };
	char *zero[] = { "--dynamic=on", "--job=0", NULL };
	char *no_dynamic[] = { "--job=42", NULL };
	char *exported[] = { "--export=on", "--job=42", NULL };
	char *launch[] = { "--dynamic=on", "--job=42", "./app", NULL };
	char *host_only[] = { "--dynamic=on", "--job=42", "--host-only=on", NULL };
	struct msprof_opts o;

	CU_ASSERT_EQUAL(parse(&o, job), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_ATTACH);
	CU_ASSERT_EQUAL(o.job, 42);
	CU_ASSERT_EQUAL(o.npids, 0);
	CU_ASSERT_FALSE(o.follow_children);
	/* Both: the job's ranks and the pids given. */
	CU_ASSERT_EQUAL(parse(&o, with_pids), 0);
	CU_ASSERT_EQUAL(o.mode, MSPROF_MODE_ATTACH);
	CU_ASSERT_EQUAL(o.job, 42);
	CU_ASSERT_EQUAL(o.npids, 2);
	expect_error(twice, "--job given twice");
	expect_error(bad, "--job takes a whole number from 1 to 2147483647, not '4x'");
	expect_error(zero, "not '0'");
	expect_error(no_dynamic, "--job goes with --dynamic=on");
	expect_error(exported, "--job goes with --dynamic=on");
	expect_error(launch, "--job cannot be combined with an app to launch");
	expect_error(host_only, "--job cannot be combined with --host-only=on");
}

/* --task-time's level reaches prof_level; on is l1, as msprof has it. */
static void test_prof_level(void)
{
	static const char *const cases[][2] = {
		{ NULL, "l1" }, { "--task-time=on", "l1" },
		{ "--task-time=l0", "l0" }, { "--task-time=l1", "l1" },
		{ "--task-time=off", "off" },
	};
	struct msprof_opts o;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *args[] = { "--dynamic=on", "--pid=1", (char *)cases[i][0],
				 NULL };

		CU_ASSERT_EQUAL_FATAL(parse(&o, args), 0);
		CU_ASSERT_STRING_EQUAL(o.prof_level, cases[i][1]);
		CU_ASSERT_EQUAL(o.task_time, strcmp(cases[i][1], "off") != 0);
		opts_free(&o);
	}
}

static void test_host_sys(void)
{
	char *all[] = { "--dynamic=on", "--pid=1",
			"--host-sys=osrt,cpu,mem,disk,network,sched",
			"--host-sys-usage=mem,cpu", "--host-sys-usage-freq=7",
			"--osrt-threshold=0", NULL };
	char *none[] = { "--dynamic=on", "--pid=1", NULL };
	struct msprof_opts o;

	CU_ASSERT_EQUAL_FATAL(parse(&o, all), 0);
	CU_ASSERT_EQUAL(o.hostsys.items, (1u << NR_HOSTSYS) - 1);
	CU_ASSERT_EQUAL(o.hostsys.usage, (1u << NR_HOSTSYS_USAGE) - 1);
	CU_ASSERT_EQUAL(o.hostsys.usage_freq_hz, 7);
	CU_ASSERT_EQUAL(hostsys_usage_period_ms(&o.hostsys), 142);
	CU_ASSERT_EQUAL(o.hostsys.osrt_threshold_us, 0);
	opts_free(&o);
	CU_ASSERT_EQUAL_FATAL(parse(&o, none), 0);
	CU_ASSERT_EQUAL(o.hostsys.items, 0);
	CU_ASSERT_EQUAL(o.hostsys.usage, 0);
	CU_ASSERT_EQUAL(o.hostsys.usage_freq_hz, HOSTSYS_USAGE_FREQ_DEF);
	CU_ASSERT_EQUAL(hostsys_usage_period_ms(&o.hostsys), 20);
	CU_ASSERT_EQUAL(o.hostsys.osrt_threshold_us, 1);
	opts_free(&o);
}

/* Each value is refused in one line that names the element or the rule. */
static void test_host_sys_errors(void)
{
	static const char *const cases[][3] = {
		{ "--host-sys=cpu,gpu", NULL, "--host-sys: unknown element 'gpu' in 'cpu,gpu'" },
		{ "--host-sys=cpu,mem,cpu", NULL, "--host-sys: 'cpu' is given twice in 'cpu,mem,cpu'" },
		{ "--host-sys=cpu,", NULL, "--host-sys: element 2 of 'cpu,' is empty" },
		{ "--host-sys=", NULL, "--host-sys: element 1 of '' is empty" },
		{ "--host-sys=CPU", NULL, "--host-sys: unknown element 'CPU'" },
		{ "--host-sys=cpu", "--host-sys=mem", "--host-sys given twice" },
		{ "--host-sys-usage=cpu,disk", NULL, "--host-sys-usage: unknown element 'disk'" },
		{ "--host-sys-usage=mem,mem", NULL, "--host-sys-usage: 'mem' is given twice" },
		{ "--host-sys-usage=,cpu", NULL, "--host-sys-usage: element 1 of ',cpu' is empty" },
		{ "--host-sys-usage=cpu", "--host-sys-usage-freq=0", "--host-sys-usage-freq takes a whole number from 1 to 50, not '0'" },
		{ "--host-sys-usage=cpu", "--host-sys-usage-freq=51", "from 1 to 50, not '51'" },
		{ "--host-sys-usage=cpu", "--host-sys-usage-freq=5Hz", "not '5Hz'" },
		{ "--host-sys-usage-freq=10", NULL, "--host-sys-usage-freq goes with --host-sys-usage" },
		{ "--host-sys=osrt", "--osrt-threshold=-1", "--osrt-threshold takes a whole number from 0 to 10000000, not '-1'" },
		{ "--host-sys=osrt", "--osrt-threshold=10000001", "not '10000001'" },
		{ "--host-sys=cpu", "--osrt-threshold=5", "--osrt-threshold goes with --host-sys=osrt" },
	};
	char *exported[] = { "--export=on", "--host-sys=cpu", NULL };
	size_t i;

	for (i = 0; i < NR(cases); i++) {
		char *args[] = { "--dynamic=on", "--pid=1", (char *)cases[i][0],
				 (char *)cases[i][1], NULL };

		expect_error(args, cases[i][2]);
		if (!strstr(err, cases[i][2]))
			printf("\n  %s: '%s', not '%s'", cases[i][0], err, cases[i][2]);
	}
	expect_error(exported, "--host-sys goes with --dynamic=on");
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
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
		{ "--control and --collect", test_control_collect },
		{ "values refused, each quoted", test_values_refused },
		{ "--pid lists add up, repeats once", test_pid_values },
		{ "--pid: at most MSPROF_MAX_PIDS processes", test_pid_limit },
		{ "--buffer-size: suffixes, rounding", test_buffer_size_values },
		{ "ring buffer: the smallest size that holds", test_ringbuf_rounding },
		{ "--idle-timeout: its bounds", test_idle_timeout_values },
		{ "--uprobe: a list, given once", test_uprobe_specs },
		{ "empty values named", test_empty_values },
		{ "repeated options: the last, or refused", test_repeated },
		{ "unknown options named as given, in one line", test_unknown_options },
		{ "modes that cannot go together", test_mode_conflicts },
		{ "--follow-children by mode", test_follow_children },
		{ "the switches' API layers", test_layers },
		{ "--list: alone", test_list },
		{ "--job: attach mode, with --pid or alone", test_job },
		{ "--task-time's level is prof_level", test_prof_level },
		{ "--host-sys and its options", test_host_sys },
		{ "--host-sys: bad values, each named", test_host_sys_errors },
		CU_TEST_INFO_NULL,
	};

	return add_suite("options", tests);
}

UNIT_SUITE(register_tests)
