// SPDX-License-Identifier: MIT
/* Directories of the agent's CANN raw files, as the unit tests read them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cann_fixture.h"
#include "unit.h"

void unit_cann_dir(char *dir)
{
	strcpy(dir, "/tmp/msprof-cann-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
}

long long unit_file_size(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) ? -1 : (long long)st.st_size;
}

unsigned int unit_check_slices(const char *dir, const char *base,
			       size_t size, long long limit,
			       long long *total)
{
	char name[256];
	unsigned int k;
	long long n;

	*total = 0;
	for (k = 0;; k++) {
		snprintf(name, sizeof(name), "%s.slice_%u", base, k);
		n = unit_file_size(dir, name);
		if (n < 0)
			return k;
		CU_ASSERT_EQUAL(n % (long long)size, 0);
		CU_ASSERT(n <= limit || n == (long long)size);
		CU_ASSERT(n > 0);
		*total += n;
	}
}

void unit_read_file(const char *dir, const char *name, char *buf, size_t len)
{
	char path[512];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	n = fread(buf, 1, len - 1, fp);
	buf[n] = '\0';
	fclose(fp);
}
