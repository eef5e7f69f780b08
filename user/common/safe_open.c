// SPDX-License-Identifier: MIT
/* Opening files for reading in directories other users can write. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "safe_open.h"

#define READ_FLAGS (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)

/* Keeps fd if it is a regular file; closes it otherwise. */
static int keep_regular(int fd, struct stat *st)
{
	int err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, st))
		err = -errno;
	else if (S_ISREG(st->st_mode))
		return fd;
	else
		err = S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
	close(fd);
	return err;
}

int open_file_beneath(int dirfd, const char *path, struct stat *st)
{
	struct open_how how = {
		.flags = READ_FLAGS,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};

	return keep_regular((int)syscall(SYS_openat2, dirfd, path, &how,
					 sizeof(how)), st);
}

int open_file_nofollow(const char *path, struct stat *st)
{
	return keep_regular(open(path, READ_FLAGS), st);
}

const char *open_file_strerror(int err)
{
	switch (err) {
	case -ELOOP:
		return "a symbolic link (not followed)";
	case -EISDIR:
		return "a directory, not a file";
	case -EINVAL:
		return "not a regular file";
	}
	return strerror(-err);
}
