// SPDX-License-Identifier: MIT
/* msprof's control files and their .done companions. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "ctrlfile.h"
#include "fsutil.h"
#include "proflayout.h"

int ctrlfile_close_text(FILE *fp)
{
	int err = ferror(fp) ? -EIO : 0;

	if (fclose(fp) && !err)
		err = -errno;
	return err;
}

int ctrlfile_write(int dir, const char *name, const char *text, size_t len)
{
	char done[NAME_MAX + 16], size[32];
	int n = snprintf(size, sizeof(size), "filesize:%zu\n", len);

	if (snprintf(done, sizeof(done), "%s" PROFDIR_DONE, name) >= (int)sizeof(done))
		return -ENAMETOOLONG;
	return fsutil_write_new_at(dir, name, text, len) ?:
	       fsutil_write_new_at(dir, done, size, (size_t)n);
}

int ctrlfile_write_fn(int dir, const char *name, ctrlfile_put_fn put,
		      const void *ctx)
{
	char *text = NULL;
	size_t len;
	FILE *fp = open_memstream(&text, &len);
	int err;

	if (!fp)
		return -errno;
	put(fp, ctx);
	err = ctrlfile_close_text(fp) ?: ctrlfile_write(dir, name, text, len);
	free(text);
	return err;
}
