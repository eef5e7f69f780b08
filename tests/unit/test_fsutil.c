// SPDX-License-Identifier: MIT
/*
 * The copy engine both copies share (the stage's, --collect's): holes kept,
 * a budget counted on the bytes written, a source that shrank refused.
 * The output directory's checks: made as needed, links and others' refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "unit.h"

/* A new file in dir of size: len bytes of 'x' at each offset in at[]. */
static int sparse_file(int dir, const char *name, off_t size, const off_t *at,
		       size_t n, size_t len)
{
	char buf[4096];
	size_t i;
	int fd;

	fd = openat(dir, name, O_RDWR | O_CREAT | O_EXCL, 0600);
	CU_ASSERT_FATAL(fd >= 0 && len <= sizeof(buf));
	memset(buf, 'x', len);
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL(pwrite(fd, buf, len, at[i]), (ssize_t)len);
	CU_ASSERT_EQUAL(ftruncate(fd, size), 0);
	return fd;
}

/* Whether name in dir holds the first size bytes of src, holes read as zeros. */
static bool same_as(int dir, const char *name, int src, off_t size)
{
	char a[4096], b[4096];
	off_t at;
	int fd = openat(dir, name, O_RDONLY);
	ssize_t n;
	bool same = fd >= 0;

	for (at = 0; same && at < size; at += n) {
		n = pread(src, a, sizeof(a), at);
		same = n > 0 && pread(fd, b, (size_t)n, at) == n &&
		       !memcmp(a, b, (size_t)n);
	}
	if (fd >= 0)
		close(fd);
	return same;
}

/* A directory of the test's own, with src and a new empty dst in it. */
struct scratch {
	char name[sizeof("/tmp/msprof-unit-XXXXXX")];
	int dir, in, out;
};

static void scratch_open(struct scratch *x, off_t size, const off_t *at,
			 size_t n)
{
	strcpy(x->name, "/tmp/msprof-unit-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(x->name));
	x->dir = open(x->name, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(x->dir >= 0);
	x->in = sparse_file(x->dir, "src", size, at, n, 4096);
	CU_ASSERT_EQUAL_FATAL(fsutil_create_at(x->dir, "dst", &x->out), 0);
}

static void scratch_close(struct scratch *x)
{
	close(x->out);
	close(x->in);
	unlinkat(x->dir, "src", 0);
	unlinkat(x->dir, "dst", 0);
	close(x->dir);
	CU_ASSERT_EQUAL(rmdir(x->name), 0);
}

static void test_copy_keeps_holes(void)
{
	static const off_t at[] = { 0, 8 << 20, (32 << 20) - 4096 };
	struct fsutil_budget b = { .max = 1 << 20 };
	struct scratch x;
	struct stat st;

	/* 32 MiB, 12 KiB of it data, the rest holes; then 8 MiB more hole. */
	scratch_open(&x, 40 << 20, at, 3);
	CU_ASSERT_EQUAL(fsutil_copy_data(x.in, 40 << 20, x.out, &b), 0);
	CU_ASSERT_EQUAL(fstat(x.out, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 40 << 20);
	/* Its blocks are its data's (tmpfs, ext4: 4 KiB pages), not 40 MiB. */
	CU_ASSERT(st.st_blocks * 512 <= 64 << 10);
	CU_ASSERT(same_as(x.dir, "dst", x.in, 40 << 20));
	/* A file system without holes (SEEK_DATA sees all) counts it all. */
	CU_ASSERT(b.used == 3 * 4096 || b.used == 40u << 20);
	scratch_close(&x);
}

/* Data past the budget: refused before a byte is written, and said why. */
static void test_copy_budget(void)
{
	static const off_t at[] = { 0, 1 << 20 };
	struct fsutil_budget b = { .max = 6000 };
	struct scratch x;
	char text[128];
	struct stat st;

	scratch_open(&x, 2 << 20, at, 2);
	CU_ASSERT_EQUAL(fsutil_copy_data(x.in, 2 << 20, x.out, &b), -ENOSPC);
	CU_ASSERT_EQUAL(b.refused, FSUTIL_OVER_BUDGET);
	CU_ASSERT_EQUAL(b.used, 0);
	CU_ASSERT_EQUAL(fstat(x.out, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 0);
	CU_ASSERT_STRING_EQUAL(fsutil_refusal_text(&b, text, sizeof(text)),
			       "past the copy budget of 5.8 KiB");
	/* A file that fits is taken, and counted. */
	b.max = 8192;
	CU_ASSERT_EQUAL(fsutil_copy_data(x.in, 2 << 20, x.out, &b), 0);
	CU_ASSERT_EQUAL(b.refused, FSUTIL_FITS);
	CU_ASSERT_EQUAL(b.used, 8192);
	/* Nothing fits a budget that is spent. */
	CU_ASSERT_EQUAL(fsutil_room(x.out, &b, 1), -ENOSPC);
	CU_ASSERT_EQUAL(fsutil_room(x.out, &b, 0), 0);
	scratch_close(&x);
}

/* A source that ends before the size it had: -ENODATA, not zeros. */
static void test_copy_shrunk(void)
{
	static const off_t at[] = { 0 };
	struct fsutil_budget b = { .max = 1 << 20 };
	struct scratch x;

	scratch_open(&x, 4096, at, 1);
	CU_ASSERT_EQUAL(fsutil_copy_data(x.in, 8192, x.out, &b), -ENODATA);
	scratch_close(&x);
}

static void test_size_text(void)
{
	char buf[32];

	CU_ASSERT_STRING_EQUAL(fsutil_size_text(0, buf, sizeof(buf)), "0 bytes");
	CU_ASSERT_STRING_EQUAL(fsutil_size_text(1023, buf, sizeof(buf)), "1023 bytes");
	CU_ASSERT_STRING_EQUAL(fsutil_size_text(4ull << 30, buf, sizeof(buf)), "4 GiB");
	CU_ASSERT_STRING_EQUAL(fsutil_size_text(1ull << 40, buf, sizeof(buf)), "1 TiB");
	CU_ASSERT_STRING_EQUAL(fsutil_size_text(5505024, buf, sizeof(buf)), "5.2 MiB");
	CU_ASSERT_STRING_EQUAL(fsutil_size_text(~0ull, buf, sizeof(buf)), "15.9 EiB");
}

static void test_mkdir_p(void)
{
	char base[] = "/tmp/msprof-unit-XXXXXX", path[256];
	struct stat st;
	FILE *fp;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(base));
	snprintf(path, sizeof(path), "%s/a//b/c/", base);
	CU_ASSERT_EQUAL(fsutil_mkdir_p(path, 0755), 0);
	CU_ASSERT_EQUAL(fsutil_mkdir_p(path, 0755), 0);
	CU_ASSERT(!stat(path, &st) && S_ISDIR(st.st_mode));
	snprintf(path, sizeof(path), "%s/f", base);
	fp = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/f/x", base);
	CU_ASSERT_EQUAL(fsutil_mkdir_p(path, 0755), -ENOTDIR);
	CU_ASSERT_EQUAL(fsutil_mkdir_p("", 0755), -ENOENT);
	snprintf(path, sizeof(path), "rm -rf '%s'", base);
	CU_ASSERT_EQUAL(system(path), 0);
}

static void test_output_checks(void)
{
	char base[] = "/tmp/msprof-unit-XXXXXX", path[200], link[200];
	int fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(base));
	/* Missing components are made. */
	snprintf(path, sizeof(path), "%s/a//b/", base);
	CU_ASSERT_EQUAL(fsutil_dir_open_safe(path, 0755, &fd), 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/a/b", base);
	CU_ASSERT_EQUAL(access(path, F_OK), 0);
	/* A link as the output itself: refused. */
	snprintf(link, sizeof(link), "%s/link", base);
	CU_ASSERT_EQUAL(symlink(path, link), 0);
	CU_ASSERT_EQUAL(fsutil_dir_open_safe(link, 0755, &fd), -ELOOP);
	/* A file. */
	snprintf(path, sizeof(path), "%s/file", base);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	CU_ASSERT_EQUAL(fsutil_dir_open_safe(path, 0755, &fd), -ENOTDIR);
	snprintf(path, sizeof(path), "%s/file/sub", base);
	CU_ASSERT_EQUAL(fsutil_dir_open_safe(path, 0755, &fd), -ENOTDIR);
	/* Writable by others: refused unless sticky. */
	snprintf(path, sizeof(path), "%s/open", base);
	CU_ASSERT_EQUAL(mkdir(path, 0700), 0);
	CU_ASSERT_EQUAL(chmod(path, 0777), 0);
	CU_ASSERT_EQUAL(fsutil_dir_open_safe(path, 0755, &fd), -EACCES);
	CU_ASSERT_EQUAL(chmod(path, 01777), 0);
	CU_ASSERT_EQUAL(fsutil_dir_open_safe(path, 0755, &fd), 0);
	close(fd);
	/* Someone else's (only root can make one here). */
	if (geteuid() == 0) {
		CU_ASSERT_EQUAL(chmod(path, 0755), 0);
		CU_ASSERT_EQUAL(chown(path, 65534, 65534), 0);
		CU_ASSERT_EQUAL(fsutil_dir_open_safe(path, 0755, &fd), -EPERM);
	}
	snprintf(path, sizeof(path), "rm -rf '%s'", base);
	CU_ASSERT_EQUAL(system(path), 0);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "sizes as people read them", test_size_text },
		{ "mkdir -p", test_mkdir_p },
		{ "--output: made safely, links and others' refused", test_output_checks },
		CU_TEST_INFO_NULL,
	};
	/* The copies' files are made beneath a directory fd: openat2(). */
	static const CU_TestInfo needy[] = {
		{ "a copy keeps its source's holes", test_copy_keeps_holes },
		{ "a copy past its budget: refused before a byte", test_copy_budget },
		{ "a source that shrank: refused", test_copy_shrunk },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("fsutil", tests, needy, unit_no_openat2(),
				 skipped);
}

UNIT_SUITE(register_tests)
