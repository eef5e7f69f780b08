// SPDX-License-Identifier: MIT
/* Opening files for reading in directories other users can write. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "safe_open.h"

/* glibc before 2.32 (Debian 11's) has no name for it; the kernel's headers do. */
#ifndef SYS_openat2
#define SYS_openat2 __NR_openat2
#endif

#define READ_FLAGS (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)

/* Keeps fd if it is a regular file; closes it otherwise. */
static int keep_regular(int fd, struct stat *st)
{
	int err;

	if (fstat(fd, st))
		err = -errno;
	else if (S_ISREG(st->st_mode))
		return fd;
	else
		err = S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
	close(fd);
	return err;
}

int safe_openat_beneath(int dirfd, const char *path, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (unsigned int)(flags | O_NOFOLLOW | O_CLOEXEC),
		.mode = mode,
		/*
		 * No mount either: a task in a user namespace of its own can
		 * bind-mount any directory it can reach over one of its own.
		 */
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	return fd < 0 ? -errno : fd;
}

int safe_open_beneath(int dirfd, const char *path, struct stat *st)
{
	int fd = safe_openat_beneath(dirfd, path, READ_FLAGS, 0);

	if (fd < 0)
		return fd;
	return keep_regular(fd, st);
}

int safe_open_nofollow(const char *path, struct stat *st)
{
	int fd = open(path, READ_FLAGS);

	if (fd < 0)
		return -errno;
	return keep_regular(fd, st);
}

const char *safe_open_strerror(int err)
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

int safe_read_small_beneath(int dirfd, const char *path, char *text, size_t cap)
{
	struct stat st;
	size_t n = 0;
	int err = 0, fd = safe_open_beneath(dirfd, path, &st);

	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_size >= cap)
		err = -EFBIG;
	while (!err && n < (size_t)st.st_size) {
		ssize_t got = read(fd, text + n, (size_t)st.st_size - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			err = got ? -errno : -EPROTO;
		else
			n += (size_t)got;
	}
	close(fd);
	text[n] = '\0';
	return err;
}
