// SPDX-License-Identifier: MIT
/* The msprof command line, checked in full before anything is touched. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

enum {
	OPT_DYNAMIC = 256,
	OPT_PID,
	OPT_OUTPUT,
	OPT_APPLICATION,
	OPT_EXPORT,
	OPT_HELP,
};

static const struct option long_opts[] = {
	{ "dynamic", required_argument, NULL, OPT_DYNAMIC },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "application", required_argument, NULL, OPT_APPLICATION },
	{ "export", required_argument, NULL, OPT_EXPORT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ 0 },
};

void opts_usage(FILE *fp)
{
	fputs("usage: msprof --dynamic=on [options] <app> [args...]   (launch mode)\n"
	      "       msprof --dynamic=on --pid=<pid>[,<pid>...] [options]  (attach mode)\n"
	      "       msprof --export=on --output=<PROF dir or its parent>\n"
	      "\n"
	      "  --dynamic=on|off        interactive start/stop collection (default off)\n"
	      "  --pid=<pid>[,<pid>...]  attach to running tasks started with PROFILING_MODE=dynamic\n"
	      "  --application=<app>     the app to launch (same as trailing arguments)\n"
	      "  --output=<dir>          where PROF_ directories go (default: current directory)\n"
	      "  --export=on|off         turn PROF_ directories into a timeline\n"
	      "  --help                  this text\n"
	      "\n"
	      "In the interactive mode type start, stop or quit at the (msprof) prompt.\n",
	      fp);
}

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_switch(const char *name, const char *val, bool *on,
			char *err, size_t len)
{
	if (!strcmp(val, "on"))
		*on = true;
	else if (!strcmp(val, "off"))
		*on = false;
	else
		return fail(err, len, "--%s takes on or off, not '%s'", name, val);
	return 0;
}

static int parse_pids(struct msprof_opts *o, const char *val, char *err,
		      size_t len)
{
	const char *p = val;

	do {
		char *end;
		long pid;
		int i;

		errno = 0;
		pid = strtol(p, &end, 10);
		if (end == p || (*end && *end != ',') || errno || pid <= 0 ||
		    pid > 0x7fffffff || *p == '+' || *p == ' ')
			return fail(err, len, "--pid takes process ids separated by commas, not '%s'", val);
		for (i = 0; i < o->npids && o->pids[i] != pid; i++)
			;
		if (i == o->npids) {
			if (o->npids == MSPROF_MAX_PIDS)
				return fail(err, len, "--pid: at most %d processes", MSPROF_MAX_PIDS);
			o->pids[o->npids++] = (int)pid;
		}
		p = *end ? end + 1 : end;
	} while (*p);
	return 0;
}

/*
 * The seed forbids these in --output; its escaped spellings ("\\n", "\\$")
 * all contain a backslash, which is forbidden itself.
 */
static int check_output(const char *dir, char *err, size_t len)
{
	static const char forbidden[] = "\n\f\r\b\t\v\x7f\"'\\%><|&$;`";
	const char *bad;

	if (!*dir)
		return fail(err, len, "--output needs a directory");
	bad = strpbrk(dir, forbidden);
	if (!bad)
		return 0;
	if (*bad < 0x20 || *bad == 0x7f)
		return fail(err, len, "--output must not contain control character 0x%02x", *bad);
	return fail(err, len, "--output must not contain '%c'", *bad);
}

/* --application="<cmd> <args>" is split on blanks, without a shell. */
static int split_application(struct msprof_opts *o, const char *val)
{
	size_t n = 0;
	char *tok, *save;

	o->app_storage = strdup(val);
	o->app_argv = calloc(strlen(val) / 2 + 2, sizeof(char *));
	if (!o->app_storage || !o->app_argv)
		return -ENOMEM;
	for (tok = strtok_r(o->app_storage, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save))
		o->app_argv[n++] = tok;
	return 0;
}

int opts_parse(struct msprof_opts *o, int argc, char **argv, char *err,
	       size_t errlen)
{
	bool dynamic = false, export = false, help = false;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->output = ".";
	o->ringbuf_bytes = 8u << 20;
	/* '+': the first non-option starts the app's own command line. */
	optind = 0;	/* GNU: re-initialise, the parser may run again */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:", long_opts, NULL)) != -1) {
		ret = 0;
		switch (c) {
		case OPT_DYNAMIC:
			ret = parse_switch("dynamic", optarg, &dynamic, err, errlen);
			break;
		case OPT_EXPORT:
			ret = parse_switch("export", optarg, &export, err, errlen);
			break;
		case OPT_PID:
			ret = parse_pids(o, optarg, err, errlen);
			break;
		case OPT_OUTPUT:
			ret = check_output(optarg, err, errlen);
			o->output = optarg;
			break;
		case OPT_APPLICATION:
			if (o->app_argv)
				ret = fail(err, errlen, "--application given twice");
			else
				ret = split_application(o, optarg);
			break;
		case OPT_HELP:
			help = true;
			break;
		case ':':
			ret = fail(err, errlen, "option '%s' needs a value (try --help)", argv[optind - 1]);
			break;
		default:
			ret = fail(err, errlen, "unknown option '%s' (try --help)", argv[optind - 1]);
			break;
		}
		if (ret)
			return ret;
	}
	if (help) {
		o->mode = MSPROF_MODE_HELP;
		return 0;
	}
	if (optind < argc) {
		if (o->app_argv)
			return fail(err, errlen, "give the app either as --application or as trailing arguments, not both");
		o->app_argv = &argv[optind];
	}
	if (o->app_argv && !o->app_argv[0])
		return fail(err, errlen, "--application is empty");
	if (export) {
		if (dynamic || o->npids || o->app_argv)
			return fail(err, errlen, "--export=on cannot be combined with --dynamic, --pid or an app");
		o->mode = MSPROF_MODE_EXPORT;
		return 0;
	}
	if (!dynamic)
		return fail(err, errlen, "no mode given: use --dynamic=on with an app or --pid, or --export=on (try --help)");
	if (o->npids && o->app_argv)
		return fail(err, errlen, "--pid cannot be combined with an app to launch");
	if (!o->npids && !o->app_argv)
		return fail(err, errlen, "--dynamic=on needs an app to launch or --pid=<pid> to attach");
	o->mode = o->npids ? MSPROF_MODE_ATTACH : MSPROF_MODE_LAUNCH;
	return 0;
}

void opts_free(struct msprof_opts *o)
{
	if (o->app_storage) {
		free(o->app_argv);
		free(o->app_storage);
	}
	o->app_argv = NULL;
	o->app_storage = NULL;
}
