// SPDX-License-Identifier: MIT
/*
 * The command line parser: the input is the arguments after "msprof", split
 * at NUL bytes.  Each argument gets its own allocation so that reading past
 * one is caught; a parse must not crash, leak, or break its own promises.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/options.h"

#define MAX_ARGS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What opts_parse promises of an accepted command line. */
static void check_accepted(const struct msprof_opts *o)
{
	int i;

	if (o->mode == MSPROF_MODE_NONE || o->npids < 0 ||
	    o->npids > MSPROF_MAX_PIDS || !o->output)
		abort();
	for (i = 0; i < o->npids; i++)
		if (o->pids[i] <= 0)
			abort();
	if (o->mode == MSPROF_MODE_LAUNCH && (!o->app_argv || !o->app_argv[0]))
		abort();
	if (o->app_argv)
		for (i = 0; o->app_argv[i]; i++)
			(void)strlen(o->app_argv[i]);
	(void)strlen(o->output);
	if (o->uprobes)
		(void)strlen(o->uprobes);
	(void)opts_layers(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 2], err[256];
	struct msprof_opts o;
	size_t off = 0;
	int argc = 1, i, ret;
	bool newline = false;

	argv[0] = strdup("msprof");
	while (off < size && argc <= MAX_ARGS) {
		const uint8_t *nul = memchr(data + off, '\0', size - off);
		size_t len = nul ? (size_t)(nul - data - off) : size - off;

		argv[argc++] = strndup((const char *)data + off, len);
		newline |= memchr(data + off, '\n', len) != NULL;
		off += len + 1;
	}
	argv[argc] = NULL;

	err[0] = '\0';
	ret = opts_parse(&o, argc, argv, err, sizeof(err));
	if (ret == 0)
		check_accepted(&o);
	/* Refused: one line that says why (it may quote an argument). */
	else if (ret == -EINVAL ? !err[0] || (!newline && strchr(err, '\n')) :
		 ret != -ENOMEM)
		abort();
	opts_free(&o);

	for (i = 0; i < argc; i++)
		free(argv[i]);
	return 0;
}
