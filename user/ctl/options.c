// SPDX-License-Identifier: MIT
/* The msprof command line, checked in full before anything is touched. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msprof/events.h"
#include "msprof/probe_packs.h"
#include "msprof/protocol.h"
#include "common/input_error.h"
#include "options.h"

enum {
	OPT_DYNAMIC = 256,
	OPT_EXPORT,
	OPT_PID,
	OPT_OUTPUT,
	OPT_APPLICATION,
	OPT_DELAY,
	OPT_DURATION,
	OPT_BUFFER_SIZE,
	OPT_IDLE_TIMEOUT,
	OPT_UPROBE,
	OPT_TYPE,
	OPT_QUERY,
	OPT_ANALYZE,
	OPT_CONTROL,
	OPT_COLLECT,
	OPT_HELP,
	OPT_VERSION,
	OPT_LIST,
	OPT_JOB,
	OPT_PYTHON_DEPTH,
	OPT_HOST_SYS,
	OPT_HOST_SYS_USAGE,
	OPT_HOST_SYS_USAGE_FREQ,
	OPT_OSRT_THRESHOLD,
	OPT_SWITCH,		/* on/off switches: long_opts index - OPT_SWITCH */
};

/* The on/off switches, by name, and where each lands. */
static const struct {
	const char *name;
	size_t field;
} switches[] = {
	{ "host-only", offsetof(struct msprof_opts, host_only) },
	{ "ioctl-payload", offsetof(struct msprof_opts, ioctl_payload) },
	{ "follow-children", offsetof(struct msprof_opts, follow_children) },
	{ "ascendcl", offsetof(struct msprof_opts, ascendcl) },
	{ "runtime-api", offsetof(struct msprof_opts, runtime_api) },
	{ "hccl", offsetof(struct msprof_opts, hccl) },
	{ "msproftx", offsetof(struct msprof_opts, msproftx) },
	{ "task-time", offsetof(struct msprof_opts, task_time) },
	{ "python-stack", offsetof(struct msprof_opts, python_stack) },
};

#define NR_SWITCHES (sizeof(switches) / sizeof(switches[0]))

static const struct option fixed_opts[] = {
	{ "dynamic", required_argument, NULL, OPT_DYNAMIC },
	{ "export", required_argument, NULL, OPT_EXPORT },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "application", required_argument, NULL, OPT_APPLICATION },
	{ "delay", required_argument, NULL, OPT_DELAY },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "buffer-size", required_argument, NULL, OPT_BUFFER_SIZE },
	{ "idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT },
	{ "uprobe", required_argument, NULL, OPT_UPROBE },
	{ "type", required_argument, NULL, OPT_TYPE },
	{ "query", required_argument, NULL, OPT_QUERY },
	{ "analyze", required_argument, NULL, OPT_ANALYZE },
	{ "control", required_argument, NULL, OPT_CONTROL },
	{ "collect", required_argument, NULL, OPT_COLLECT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "job", required_argument, NULL, OPT_JOB },
	{ "python-depth", required_argument, NULL, OPT_PYTHON_DEPTH },
	{ "host-sys", required_argument, NULL, OPT_HOST_SYS },
	{ "host-sys-usage", required_argument, NULL, OPT_HOST_SYS_USAGE },
	{ "host-sys-usage-freq", required_argument, NULL, OPT_HOST_SYS_USAGE_FREQ },
	{ "osrt-threshold", required_argument, NULL, OPT_OSRT_THRESHOLD },
};

#define NR_FIXED (sizeof(fixed_opts) / sizeof(fixed_opts[0]))

void opts_usage(FILE *fp)
{
	fputs("usage: msprof --dynamic=on [options] <app> [args...]   (launch mode)\n"
	      "       msprof --dynamic=on --pid=<pid>[,<pid>...] [options]  (attach mode)\n"
	      "       msprof --export=on [--type=text|db] --output=<PROF dir or its parent>\n"
	      "       msprof --query=on --output=<PROF dir or its parent>\n"
	      "       msprof --analyze=on --output=<PROF dir or its parent>\n"
	      "       msprof --list\n"
	      "       msprof --collect=<cluster dir> <dir>...\n"
	      "\n"
	      "  --dynamic=on|off        interactive start/stop collection (default off)\n"
	      "  --pid=<pid>[,<pid>...]  attach to running tasks started with PROFILING_MODE=dynamic;\n"
	      "                          host PIDs of tasks in containers work too\n"
	      "  --job=<pid>             attach mode: the process <pid> and each process it\n"
	      "                          started that has a profiling socket (a job's ranks);\n"
	      "                          with --pid, those too\n"
	      "  --list                  the tasks that can be profiled, one per line:\n"
	      "                          PID NSPID USER COMMAND RANK_ID HELD_BY (tab-separated)\n"
	      "  --application=<app>     the app to launch (same as trailing arguments)\n"
	      "  --output=<dir>          where PROF_ directories go (default: current directory)\n"
	      "  --export=on|off         turn PROF_ directories into a timeline\n"
	      "  --type=text|db          with --export=on: db also writes PROF_*/msprof_<ts>.db\n"
	      "                          (msprof's SQLite tables; default text)\n"
	      "  --query=on|off          list PROF_ directories: job, devices, dir, time, rank\n"
	      "  --analyze=on|off        write PROF_*/analyze/: the communication analysis\n"
	      "                          (a mode of its own: run --export=on separately)\n"
	      "  --collect=<dir>         copy the PROF_ directories of the dirs given (each a\n"
	      "                          PROF_ directory or one holding some: every node's)\n"
	      "                          into <dir>, for msprof-analyze cluster\n"
	      "  --host-only=on|off      attach without the task's agent: host-side (eBPF) data\n"
	      "                          only, for tasks not started with PROFILING_MODE=dynamic\n"
	      "  --follow-children=on|off  processes a target starts become targets\n"
	      "                          (default: on in launch mode, off in attach mode)\n"
	      "  --ioctl-payload=on|off  keep each driver ioctl's argument struct as the\n"
	      "                          call returns, 64 bytes at most (default off)\n"
	      "  --control=<path>        also read the prompt's commands from a FIFO msprof\n"
	      "                          makes there (0600; %h: this host's name), e.g. for\n"
	      "                          pdsh or srun; stdin's end then does not end msprof\n"
	      "  --idle-timeout=<s>      leave the prompt after <s> seconds without a start\n"
	      "                          (default 1800, as msprof)\n"
	      "  --buffer-size=<N>[K|M]  kernel ring buffer size, 4K..1024M (default 8M)\n"
	      "  --uprobe=<lib>:<func>[,...]  also probe these functions (lib: a file name\n"
	      "                          or part of one, as mapped by the task)\n"
	      "  --ascendcl=on|off       the runtime API: acl*, cuda* (default on)\n"
	      "  --runtime-api=on|off    the layer below: rt*, cu* (default off)\n"
	      "  --hccl=on|off           collectives: Hccl* (default off)\n"
	      "  --msproftx=on|off       user marks: mstx* (default off)\n"
	      "  --msproftx, --task-time=on|off|l0|l1  also passed to the task's runtime\n"
	      "                          (--task-time=off: no device tasks)\n"
	      "  --python-stack=on|off   each call's Python stack, for CPython 3.9-3.13\n"
	      "                          targets (default on)\n"
	      "  --python-depth=<n>      Python frames kept per call, 1..128 (default 32)\n"
	      "  --host-sys=<list>       what the host did in the window, any of cpu, mem,\n"
	      "                          disk, network, osrt (syscalls and pthread calls)\n"
	      "                          and sched (each thread's states), comma-separated\n"
	      "  --host-sys-usage=<list> every process's and the system's usage: cpu, mem\n"
	      "  --host-sys-usage-freq=<hz>  its sampling rate, 1..50 (default 50)\n"
	      "  --osrt-threshold=<us>   with osrt: a lock or wait call is kept when it\n"
	      "                          blocked this long, 0..10000000 (default 1)\n"
	      "  --delay=<s>, --duration=<s>  delayed collection: not with --dynamic=on\n"
	      "  --help                  this text\n"
	      "  --version               msprof's version\n"
	      "\n"
	      "At the (msprof) prompt: start, start at <when>, stop, status, help, quit.\n",
	      fp);
}

static int parse_switch(const char *name, const char *val, bool *on,
			char *err, size_t len)
{
	/* --task-time also takes msprof's levels, which both mean on. */
	bool level = !strcmp(name, "task-time") &&
		     (!strcmp(val, "l0") || !strcmp(val, "l1"));

	if (!strcmp(val, "on") || level)
		*on = true;
	else if (!strcmp(val, "off"))
		*on = false;
	else
		return input_error(err, len, "--%s takes on or off, not '%s'", name, val);
	return 0;
}

/* A whole decimal number in [min, max], nothing else. */
static int parse_number(const char *name, const char *val, unsigned long min,
			unsigned long max, unsigned long *out, char *err,
			size_t len)
{
	char *end;

	errno = 0;
	*out = strtoul(val, &end, 10);
	if (*val < '0' || *val > '9' || *end || errno || *out < min || *out > max)
		return input_error(err, len, "--%s takes a whole number from %lu to %lu, not '%s'",
			    name, min, max, val);
	return 0;
}

/* "1,", ",1" and "1,,2" are typos, not lists: name the empty element. */
static int check_list(const char *name, const char *val, char *err,
		      size_t len)
{
	const char *p = val;
	unsigned int i;

	for (i = 1;; i++) {
		size_t n = strcspn(p, ",");

		if (!n)
			return input_error(err, len, "--%s: element %u of '%s' is empty: remove the stray comma",
				    name, i, val);
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

static int parse_pids(struct msprof_opts *o, const char *val, char *err,
		      size_t len)
{
	const char *p = val;
	int ret = check_list("pid", val, err, len);

	if (ret)
		return ret;

	do {
		char *end;
		long pid;
		int i;

		errno = 0;
		pid = strtol(p, &end, 10);
		if (end == p || (*end && *end != ',') || errno || pid <= 0 ||
		    pid > 0x7fffffff || *p < '0' || *p > '9')
			return input_error(err, len, "--pid takes process ids separated by commas, not '%s'", val);
		for (i = 0; i < o->npids && o->pids[i] != pid; i++)
			;
		if (i == o->npids) {
			if (o->npids == MSPROF_MAX_PIDS)
				return input_error(err, len, "--pid: at most %d processes", MSPROF_MAX_PIDS);
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
		return input_error(err, len, "--output needs a directory");
	bad = strpbrk(dir, forbidden);
	if (!bad)
		return 0;
	if (*bad < 0x20 || *bad == 0x7f)
		return input_error(err, len, "--output must not contain control character 0x%02x", *bad);
	return input_error(err, len, "--output must not contain '%c'", *bad);
}

size_t opts_ringbuf_size(unsigned long long bytes, size_t page)
{
	size_t size = page;

	while (size < bytes)
		size <<= 1;
	return size;
}

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* --buffer-size=<N>[K|M], megabytes without a suffix. */
static int parse_buffer_size(struct msprof_opts *o, const char *val,
			     char *err, size_t len)
{
	unsigned long long n, bytes;
	char *end;

	errno = 0;
	n = strtoull(val, &end, 10);
	if (*val < '0' || *val > '9' || errno || !n || n > (1ull << 30) ||
	    (*end && strcmp(end, "K") && strcmp(end, "M")))
		return input_error(err, len, "--buffer-size takes <N>[K|M] (megabytes without a suffix), not '%s'", val);
	bytes = n << (*end == 'K' ? 10 : 20);
	if (bytes > (1ull << 30))
		return input_error(err, len, "--buffer-size: at most 1024M, not '%s'", val);
	o->ringbuf_bytes = opts_ringbuf_size(bytes, page_size());
	return 0;
}

/* "<lib>:<func>[,<lib>:<func>...]", each side non-empty. */
static int check_uprobes(const char *val, char *err, size_t len)
{
	const char *item = val;
	int ret = check_list("uprobe", val, err, len);

	if (ret)
		return ret;

	do {
		size_t n = strcspn(item, ",");
		const char *colon = memchr(item, ':', n);

		if (!colon || colon == item || colon == item + n - 1 ||
		    memchr(colon + 1, ':', n - (size_t)(colon + 1 - item)))
			return input_error(err, len, "--uprobe takes <lib>:<func>[,<lib>:<func>...], not '%s'", val);
		item += n + (item[n] == ',');
	} while (*item);
	return 0;
}

/*
 * A comma-separated list of names[] (nr of them) as a mask of 1 << index;
 * an unknown, repeated or empty element is named.
 */
static int parse_names(const char *opt, const char *val,
		       const char *const *names, unsigned int nr,
		       unsigned int *mask, char *err, size_t len)
{
	const char *p = val;
	int ret = check_list(opt, val, err, len);
	unsigned int i;

	if (ret)
		return ret;
	*mask = 0;
	do {
		size_t n = strcspn(p, ",");

		for (i = 0; i < nr; i++)
			if (strlen(names[i]) == n && !strncmp(p, names[i], n))
				break;
		if (i == nr)
			return input_error(err, len, "--%s: unknown element '%.*s' in '%s'",
				    opt, (int)n, p, val);
		if (*mask & 1u << i)
			return input_error(err, len, "--%s: '%s' is given twice in '%s'",
				    opt, names[i], val);
		*mask |= 1u << i;
		p += n + (p[n] == ',');
	} while (*p);
	return 0;
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

/* What one option does; *seen collects the modes and conflicts. */
struct seen {
	bool dynamic, export, query, analyze, help, version, list;
	const char *other;	/* the first option but --list, for its error */
	const char *type;	/* --type, if given */
	bool follow_set;	/* --follow-children given: no mode default */
	const char *delayed;	/* --delay or --duration, if given */
	const char *hostsys;	/* the first of the host-sys options given */
	bool usage_freq;	/* --host-sys-usage-freq given */
	bool osrt_threshold;	/* --osrt-threshold given */
};

/* --host-sys and the options that go with it. */
static int apply_host_sys(struct msprof_opts *o, struct seen *s, int c,
			  const char *name, const char *val, char *err,
			  size_t len)
{
	struct hostsys_conf *h = &o->hostsys;
	unsigned long n;
	int ret;

	if (!s->hostsys)
		s->hostsys = name;
	switch (c) {
	case OPT_HOST_SYS:
		if (h->items)
			return input_error(err, len, "--host-sys given twice: list the elements in one, separated by commas");
		return parse_names(name, val, hostsys_item_names, NR_HOSTSYS,
				   &h->items, err, len);
	case OPT_HOST_SYS_USAGE:
		if (h->usage)
			return input_error(err, len, "--host-sys-usage given twice: list the elements in one, separated by commas");
		return parse_names(name, val, hostsys_usage_names,
				   NR_HOSTSYS_USAGE, &h->usage, err, len);
	case OPT_HOST_SYS_USAGE_FREQ:
		s->usage_freq = true;
		ret = parse_number(name, val, 1, HOSTSYS_USAGE_FREQ_MAX, &n, err, len);
		h->usage_freq_hz = (unsigned int)n;
		return ret;
	default:
		s->osrt_threshold = true;
		ret = parse_number(name, val, 0, HOSTSYS_OSRT_THRESHOLD_MAX, &n, err, len);
		h->osrt_threshold_us = (unsigned int)n;
		return ret;
	}
}

/* A switch of switches[]: msprof's collection switches and the like. */
static int apply_switch(struct msprof_opts *o, struct seen *s, int c,
			const char *name, const char *val, char *err,
			size_t len)
{
	if (!strcmp(name, "follow-children"))
		s->follow_set = true;
	if (!strcmp(name, "task-time"))
		o->prof_level = !strcmp(val, "l0") ? "l0" :
				!strcmp(val, "off") ? "off" : "l1";
	return parse_switch(name, val,
			    (bool *)((char *)o + switches[c - OPT_SWITCH].field),
			    err, len);
}

static int apply(struct msprof_opts *o, struct seen *s, int c,
		 const char *name, const char *val, char *err, size_t len)
{
	unsigned long n;
	int ret;

	if (c >= OPT_SWITCH)
		return apply_switch(o, s, c, name, val, err, len);
	if (c >= OPT_HOST_SYS)
		return apply_host_sys(o, s, c, name, val, err, len);
	switch (c) {
	case OPT_DYNAMIC:
		return parse_switch(name, val, &s->dynamic, err, len);
	case OPT_EXPORT:
		return parse_switch(name, val, &s->export, err, len);
	case OPT_QUERY:
		return parse_switch(name, val, &s->query, err, len);
	case OPT_ANALYZE:
		return parse_switch(name, val, &s->analyze, err, len);
	case OPT_TYPE:
		if (strcmp(val, "text") && strcmp(val, "db"))
			return input_error(err, len, "--type takes text or db, not '%s'", val);
		s->type = val;
		o->db = !strcmp(val, "db");
		return 0;
	case OPT_PID:
		return parse_pids(o, val, err, len);
	case OPT_OUTPUT:
		o->output = val;
		return check_output(val, err, len);
	case OPT_APPLICATION:
		if (o->app_argv)
			return input_error(err, len, "--application given twice");
		return split_application(o, val);
	case OPT_DELAY:
	case OPT_DURATION:
		s->delayed = c == OPT_DELAY ? "--delay" : "--duration";
		return parse_number(name, val, 1, UINT32_MAX, &n, err, len);
	case OPT_BUFFER_SIZE:
		return parse_buffer_size(o, val, err, len);
	case OPT_UPROBE:
		if (o->uprobes)
			return input_error(err, len, "--uprobe given twice: list the functions in one, separated by commas");
		o->uprobes = val;
		return check_uprobes(val, err, len);
	case OPT_IDLE_TIMEOUT:
		ret = parse_number(name, val, 1, 7 * 24 * 3600, &n, err, len);
		o->idle_timeout_s = (unsigned int)n;
		return ret;
	case OPT_CONTROL:
		if (!*val)
			return input_error(err, len, "--control needs a path");
		if (strlen(val) >= PATH_MAX)
			return input_error(err, len, "--control: the path is longer than %d bytes", PATH_MAX - 1);
		o->control = val;
		return 0;
	case OPT_COLLECT:
		if (!*val)
			return input_error(err, len, "--collect needs the cluster directory");
		o->collect = val;
		return check_output(val, err, len);
	case OPT_VERSION:
		s->version = true;
		return 0;
	case OPT_LIST:
		s->list = true;
		return 0;
	case OPT_PYTHON_DEPTH:
		ret = parse_number(name, val, 1, MSPROF_PY_MAX_DEPTH, &n, err, len);
		o->python_depth = (unsigned int)n;
		return ret;
	case OPT_JOB:
		if (o->job)
			return input_error(err, len, "--job given twice: one launcher per msprof (add single processes with --pid)");
		ret = parse_number(name, val, 1, 0x7fffffff, &n, err, len);
		o->job = (int)n;
		return ret;
	default:
		s->help = true;
		return 0;
	}
}

/* Decides the mode once every option is known. */
static int settle_mode(struct msprof_opts *o, const struct seen *s,
		       char *err, size_t len)
{
	if (s->help) {
		o->mode = MSPROF_MODE_HELP;
		return 0;
	}
	if (s->version) {
		o->mode = MSPROF_MODE_VERSION;
		return 0;
	}
	if (s->list) {
		if (s->other || o->app_argv)
			return input_error(err, len, "--list takes no other option (%s%s given)",
				    s->other ? "--" : "",
				    s->other ?: "an app");
		o->mode = MSPROF_MODE_LIST;
		return 0;
	}
	if (o->app_argv && !o->app_argv[0])
		return input_error(err, len, "--application is empty");
	if (o->job && !s->dynamic)
		return input_error(err, len, "--job goes with --dynamic=on: it attaches to a running job's ranks");
	if (s->type && !s->export)
		return input_error(err, len, "--type=%s goes with --export=on", s->type);
	if (o->control && !s->dynamic)
		return input_error(err, len, "--control goes with --dynamic=on");
	if (s->hostsys && !s->dynamic)
		return input_error(err, len, "--%s goes with --dynamic=on", s->hostsys);
	if (s->usage_freq && !o->hostsys.usage)
		return input_error(err, len, "--host-sys-usage-freq goes with --host-sys-usage");
	if (s->osrt_threshold && !hostsys_on(&o->hostsys, HOSTSYS_OSRT))
		return input_error(err, len, "--osrt-threshold goes with --host-sys=osrt");
	if (o->collect) {
		if (s->export || s->query || s->analyze || s->dynamic || o->npids)
			return input_error(err, len, "--collect cannot be combined with --export, --query, --analyze, --dynamic or --pid");
		if (!o->app_argv)
			return input_error(err, len, "--collect=%s needs the directories to collect from", o->collect);
		o->mode = MSPROF_MODE_COLLECT;
		return 0;
	}
	if (s->query) {
		if (s->export || s->analyze || s->dynamic || o->npids || o->app_argv)
			return input_error(err, len, "--query=on cannot be combined with --export, --analyze, --dynamic, --pid or an app");
		o->mode = MSPROF_MODE_QUERY;
		return 0;
	}
	/* As msprof: analyzing is a command of its own, after the export. */
	if (s->analyze) {
		if (s->export || s->dynamic || o->npids || o->app_argv)
			return input_error(err, len, "--analyze=on cannot be combined with --export, --dynamic, --pid or an app");
		o->mode = MSPROF_MODE_ANALYZE;
		return 0;
	}
	if (s->export) {
		if (s->dynamic || o->npids || o->app_argv)
			return input_error(err, len, "--export=on cannot be combined with --dynamic, --pid or an app");
		o->mode = MSPROF_MODE_EXPORT;
		return 0;
	}
	if (!s->dynamic)
		return input_error(err, len, "no mode given: use --dynamic=on with an app or --pid, --export=on, --query=on or --analyze=on (try --help)");
	if (s->delayed)
		return input_error(err, len, "--dynamic=on cannot be combined with %s", s->delayed);
	if (o->npids && o->app_argv)
		return input_error(err, len, "--pid cannot be combined with an app to launch");
	if (o->job && o->app_argv)
		return input_error(err, len, "--job cannot be combined with an app to launch: launch mode already takes the app's ranks");
	/* A job's ranks are found by their sockets: they have agents. */
	if (o->job && o->host_only)
		return input_error(err, len, "--job cannot be combined with --host-only=on: give the processes with --pid");
	if (!o->npids && !o->job && !o->app_argv)
		return input_error(err, len, "--dynamic=on needs an app to launch or --pid=<pid> to attach");
	if (o->host_only && o->app_argv)
		return input_error(err, len, "--host-only=on is for attach mode (--pid)");
	o->mode = o->npids || o->job ? MSPROF_MODE_ATTACH : MSPROF_MODE_LAUNCH;
	if (!s->follow_set)
		o->follow_children = o->mode == MSPROF_MODE_LAUNCH;
	return 0;
}

int opts_parse(struct msprof_opts *o, int argc, char **argv, char *err,
	       size_t errlen)
{
	struct option long_opts[NR_FIXED + NR_SWITCHES + 1];
	struct seen s = { 0 };
	int c, idx, ret;
	size_t i;

	memset(o, 0, sizeof(*o));
	o->output = ".";
	o->ringbuf_bytes = opts_ringbuf_size(MSPROF_RINGBUF_BYTES, page_size());
	o->idle_timeout_s = MSPROF_IDLE_TIMEOUT_S;
	o->ascendcl = true;
	o->python_stack = true;
	o->python_depth = MSPROF_PYTHON_DEPTH;
	o->task_time = true;
	o->prof_level = "l1";
	o->hostsys.usage_freq_hz = HOSTSYS_USAGE_FREQ_DEF;
	o->hostsys.osrt_threshold_us = HOSTSYS_OSRT_THRESHOLD_DEF;
	memcpy(long_opts, fixed_opts, sizeof(fixed_opts));
	for (i = 0; i < NR_SWITCHES; i++)
		long_opts[NR_FIXED + i] = (struct option){
			switches[i].name, required_argument, NULL,
			OPT_SWITCH + (int)i };
	memset(&long_opts[NR_FIXED + NR_SWITCHES], 0, sizeof(long_opts[0]));

	optind = 0;	/* GNU: re-initialise, the parser may run again */
	opterr = 0;
	/* '+': the first non-option starts the app's own command line. */
	while ((c = getopt_long(argc, argv, "+:", long_opts, &idx)) != -1) {
		if (c == ':')
			return input_error(err, errlen, "option '%s' needs a value (try --help)", argv[optind - 1]);
		/* After "-xy", argv[optind - 1] is still the argument before. */
		if (c == '?' && optopt > 0 && optopt < OPT_DYNAMIC)
			return input_error(err, errlen, "unknown option '-%c' (try --help)", optopt);
		if (c == '?')
			return input_error(err, errlen, "unknown option '%s' (try --help)", argv[optind - 1]);
		if (c != OPT_LIST && !s.other)
			s.other = long_opts[idx].name;
		ret = apply(o, &s, c, long_opts[idx].name, optarg, err, errlen);
		if (ret)
			return ret;
	}
	if (optind < argc) {
		if (o->app_argv)
			return input_error(err, errlen, "give the app either as --application or as trailing arguments, not both");
		o->app_argv = &argv[optind];
	}
	return settle_mode(o, &s, err, errlen);
}

const char *opts_name(size_t i)
{
	if (i < NR_FIXED)
		return fixed_opts[i].name;
	if (i < NR_FIXED + NR_SWITCHES)
		return switches[i - NR_FIXED].name;
	return NULL;
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

unsigned int opts_layers(const struct msprof_opts *o)
{
	unsigned int layers = 1u << MSPROF_LAYER_CUSTOM;

	if (o->ascendcl)
		layers |= 1u << MSPROF_LAYER_ACL | 1u << MSPROF_LAYER_CUDA_RUNTIME;
	if (o->runtime_api)
		layers |= 1u << MSPROF_LAYER_RUNTIME | 1u << MSPROF_LAYER_CUDA_DRIVER;
	if (o->hccl)
		layers |= 1u << MSPROF_LAYER_HCCL;
	if (o->msproftx)
		layers |= 1u << MSPROF_LAYER_MSTX;
	if (hostsys_on(&o->hostsys, HOSTSYS_OSRT))
		layers |= 1u << MSPROF_LAYER_OSRT;
	return layers;
}
