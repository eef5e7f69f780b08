/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_CTRLFILE_H
#define MSPROF_CTRLFILE_H

#include <stddef.h>
#include <stdio.h>

/*
 * msprof's control files (info.json, start_info, host_start.log, ...), as
 * both msprof and a runtime write them: made new beneath dir, then
 * <name>.done holding "filesize:<bytes>\n".  0 or -errno.
 */
int ctrlfile_write(int dir, const char *name, const char *text, size_t len);

/* The same for the text put writes into a stream. */
typedef void (*ctrlfile_put_fn)(FILE *fp, const void *ctx);
int ctrlfile_write_fn(int dir, const char *name, ctrlfile_put_fn put,
		      const void *ctx);

/* Closes a memory stream; 0, or the first error it met. */
int ctrlfile_close_text(FILE *fp);

#endif
