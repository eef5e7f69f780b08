// SPDX-License-Identifier: MIT
/*
 * The symbol table reader on a file a task could map: the input's first 4
 * bytes say how far past the rest the file is extended with a hole (at
 * most 1 GiB), the rest is the file's start.  Whatever the file claims,
 * the reader stays within its bounds: -rss_limit_mb catches memory that
 * follows a claim, and the answer must be one elfsym.h allows.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host/elfsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Pack functions and one longer than a name window: none may break it. */
static const char *const names[] = {
	"aclInit", "aclrtLaunchKernel", "cudaMalloc", "f", "main", "",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

static bool refusal(int ret)
{
	return ret == -EFBIG || ret == -EINVAL || ret == -ENOSPC;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	uint64_t offs[NNAMES], budget = 96ull << 20, spent;
	char why[160] = "";
	uint32_t hole;
	size_t i;
	int ret;

	if (size < sizeof(hole))
		return 0;
	memcpy(&hole, data, sizeof(hole));
	hole &= (1u << 30) - 1;
	data += sizeof(hole);
	size -= sizeof(hole);
	if (fd < 0)
		fd = memfd_create("fuzz_elfsym", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) ||
	    pwrite(fd, data, size, 0) != (ssize_t)size ||
	    ftruncate(fd, (off_t)(size + hole)))
		abort();

	ret = elfsym_find_funcs(fd, names, NNAMES, offs, &budget, why,
				sizeof(why));
	spent = (96ull << 20) - budget;
	/* Said exactly when refused; never more read than a file may be. */
	if (ret > (int)NNAMES || (ret < 0 && ret != -ENOEXEC && !refusal(ret)) ||
	    refusal(ret) != (*why != '\0') || spent > ELFSYM_MAX_TABLE_BYTES ||
	    (ret < 0 && spent))
		abort();
	for (i = 0; ret >= 0 && i < NNAMES; i++)
		if (offs[i] >= size + hole)
			abort();
	return 0;
}
