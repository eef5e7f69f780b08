// SPDX-License-Identifier: MIT
/* Reading PROF_ directories back, whole, in part, or not at all. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/profdata.h"
#include "task/profdir.h"
#include "unit.h"

#define INFO_DONE "{\"pid\": 4242, \"comm\": \"train\", \"host\": {\"lost_events\": 3}, \"end\": {\"mono_ns\": 90000}}"

struct window {
	char dir[32];
	char path[128];
};

static const char *at(struct window *w, const char *name)
{
	snprintf(w->path, sizeof(w->path), "%s/%s", w->dir, name);
	return w->path;
}

static void put_text(struct window *w, const char *name, const char *text)
{
	int fd = open(at(w, name), O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* Host calls ending at 1000, 2000, ...; one device task ending at 5500. */
static void make_window(struct window *w, const char *info, int napis)
{
	struct msprof_devtask_rec dt = { .host_tid = 7, .end_ns = 5500 };
	struct msprof_api_event e = { .kind = MSPROF_EV_API, .tgid = 77, .tid = 7 };
	struct recfile *f;
	int i;

	snprintf(w->dir, sizeof(w->dir), "/tmp/msprof-pd-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(w->dir));
	CU_ASSERT_EQUAL(mkdir(at(w, "host"), 0700), 0);
	CU_ASSERT_EQUAL(mkdir(at(w, PROFDIR_HOST_DATA), 0700), 0);
	CU_ASSERT_EQUAL(mkdir(at(w, "device_0"), 0700), 0);
	CU_ASSERT_EQUAL(mkdir(at(w, "device_0/data"), 0700), 0);
	put_text(w, PROFDIR_HOST_START, "{}\n");
	if (info)
		put_text(w, PROFDIR_FACTS, info);
	CU_ASSERT_EQUAL_FATAL(recfile_create(&f, at(w, PROFDIR_HOST_FILE)), 0);
	for (i = 0; i < napis; i++) {
		e.start_ns = (uint64_t)i * 1000 + 500;
		e.end_ns = (uint64_t)i * 1000 + 1000;
		CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_API, &e, sizeof(e), NULL, 0), 0);
	}
	CU_ASSERT_EQUAL(recfile_close(f), 0);
	CU_ASSERT_EQUAL_FATAL(recfile_create(&f, at(w, "device_0/" PROFDIR_DEVICE_FILE)), 0);
	CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_DEVTASK, &dt, sizeof(dt), "kernel", 7), 0);
	CU_ASSERT_EQUAL(recfile_close(f), 0);
}

static void remove_window(struct window *w)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", w->dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static void test_complete(void)
{
	struct profdata p;
	struct window w;

	make_window(&w, INFO_DONE, 4);
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	CU_ASSERT_EQUAL(p.meta.pid, 4242);
	CU_ASSERT_STRING_EQUAL(p.meta.comm, "train");
	CU_ASSERT_EQUAL(p.meta.lost_events, 3);
	CU_ASSERT_EQUAL(p.end_mono_ns, 90000);
	CU_ASSERT_EQUAL(p.ncalls, 4);
	CU_ASSERT_EQUAL(p.ntasks, 1);
	CU_ASSERT_STRING_EQUAL(strtab_str(&p.names, p.tasks[0].name), "kernel");
	CU_ASSERT_FALSE(p.meta.incomplete);
	CU_ASSERT_EQUAL(p.nproblems, 0);
	profdata_free(&p);
	remove_window(&w);
}

/* A window the controller never closed ends at its last record. */
static void test_incomplete(void)
{
	struct profdata p;
	struct window w;

	make_window(&w, "{\"state\": \"collecting\", \"comm\": \"train\"}", 3);
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	CU_ASSERT(p.meta.incomplete);
	CU_ASSERT_EQUAL(p.meta.pid, 77);
	CU_ASSERT_STRING_EQUAL(p.meta.comm, "train");
	CU_ASSERT_STRING_EQUAL(p.meta.incomplete_reason, "the controller ended before stop");
	CU_ASSERT_EQUAL(p.end_mono_ns, 5500);
	CU_ASSERT_EQUAL(p.ncalls, 3);
	profdata_free(&p);

	put_text(&w, PROFDIR_FACTS, "{\"state\": \"incomplete\", \"incomplete_reason\": \"disk full\", \"pid\": 1}");
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	CU_ASSERT(p.meta.incomplete);
	CU_ASSERT_STRING_EQUAL(p.meta.incomplete_reason, "disk full");
	profdata_free(&p);

	put_text(&w, PROFDIR_FACTS, "{\"state\": \"complete\", \"pid\": 1}");
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	CU_ASSERT_FALSE(p.meta.incomplete);
	profdata_free(&p);

	/* A crash as the window began: host/start_info and data, no account. */
	CU_ASSERT_EQUAL(unlink(at(&w, PROFDIR_FACTS)), 0);
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	CU_ASSERT(p.meta.incomplete);
	CU_ASSERT_EQUAL(p.meta.pid, 77);
	CU_ASSERT_EQUAL(p.end_mono_ns, 5500);
	profdata_free(&p);

	/* Neither: not a window. */
	CU_ASSERT_EQUAL(unlink(at(&w, PROFDIR_HOST_START)), 0);
	CU_ASSERT_EQUAL(profdata_load(&p, w.dir), -ENOENT);
	CU_ASSERT_EQUAL(p.ncalls, 0);
	remove_window(&w);
}

/* Bad data files lose their data from where they go bad, and say so. */
static void test_bad_data_files(void)
{
	struct stat st;
	struct profdata p;
	struct window w;

	make_window(&w, INFO_DONE, 10);
	/* The device file corrupt after the host data is loaded: no leak. */
	put_text(&w, "device_0/" PROFDIR_DEVICE_FILE, "garbage, not a msprof data file");
	CU_ASSERT_EQUAL(stat(at(&w, PROFDIR_HOST_FILE), &st), 0);
	CU_ASSERT_EQUAL(truncate(w.path, st.st_size - 1), 0);
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	CU_ASSERT_EQUAL(p.ncalls, 9);
	CU_ASSERT_EQUAL(p.ntasks, 0);
	CU_ASSERT_EQUAL_FATAL(p.nproblems, 2);
	CU_ASSERT_STRING_EQUAL(p.problems[0].file, PROFDIR_HOST_FILE);
	CU_ASSERT_EQUAL(p.problems[0].err, -EBADMSG);
	CU_ASSERT_EQUAL(p.problems[0].stop.offset,
			st.st_size - 4 - sizeof(struct msprof_api_event));
	CU_ASSERT_STRING_EQUAL(p.problems[1].file, "device_0/" PROFDIR_DEVICE_FILE);
	CU_ASSERT_EQUAL(p.problems[1].err, -EPROTO);
	profdata_free(&p);

	/* A FIFO, a link, a directory: not read, never waited on. */
	alarm(10);
	CU_ASSERT_EQUAL(unlink(at(&w, "device_0/" PROFDIR_DEVICE_FILE)), 0);
	CU_ASSERT_EQUAL(mkfifo(w.path, 0600), 0);
	CU_ASSERT_EQUAL(unlink(at(&w, PROFDIR_HOST_FILE)), 0);
	CU_ASSERT_EQUAL(symlink("/etc/passwd", w.path), 0);
	CU_ASSERT_EQUAL(mkdir(at(&w, "device_1"), 0700), 0);
	CU_ASSERT_EQUAL(mkdir(at(&w, "device_1/data"), 0700), 0);
	CU_ASSERT_EQUAL(mkdir(at(&w, "device_1/" PROFDIR_DEVICE_FILE), 0700), 0);
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	alarm(0);
	CU_ASSERT_EQUAL(p.ncalls, 0);
	CU_ASSERT_EQUAL_FATAL(p.nproblems, 3);
	CU_ASSERT_EQUAL(p.problems[0].err, -ELOOP);
	/* device_0 and device_1 in either order. */
	CU_ASSERT_EQUAL(p.problems[1].err + p.problems[2].err, -EINVAL - EISDIR);
	profdata_free(&p);

	/* A link on the way to a data file is not followed either. */
	CU_ASSERT_EQUAL(unlink(at(&w, PROFDIR_HOST_FILE)), 0);
	CU_ASSERT_EQUAL(rmdir(at(&w, PROFDIR_HOST_DATA)), 0);
	CU_ASSERT_EQUAL(symlink(w.dir, w.path), 0);
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	CU_ASSERT_EQUAL(p.problems[0].err, -ELOOP);
	profdata_free(&p);
	remove_window(&w);
}

/* An account that is not msprof's: the window is refused, nothing held. */
static void test_bad_info(void)
{
	char big[70000];
	struct profdata p;
	struct window w;

	make_window(&w, INFO_DONE, 1);
	alarm(10);
	CU_ASSERT_EQUAL(unlink(at(&w, PROFDIR_FACTS)), 0);
	CU_ASSERT_EQUAL(mkfifo(w.path, 0600), 0);
	CU_ASSERT_EQUAL(profdata_load(&p, w.dir), -EINVAL);
	alarm(0);
	CU_ASSERT_EQUAL(unlink(w.path), 0);
	CU_ASSERT_EQUAL(symlink("host/start_info", at(&w, PROFDIR_FACTS)), 0);
	CU_ASSERT_EQUAL(profdata_load(&p, w.dir), -ELOOP);
	CU_ASSERT_EQUAL(unlink(at(&w, PROFDIR_FACTS)), 0);
	memset(big, ' ', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "{\"pid\": 1,", 10);
	put_text(&w, PROFDIR_FACTS, big);
	CU_ASSERT_EQUAL(profdata_load(&p, w.dir), -EFBIG);
	put_text(&w, PROFDIR_FACTS, "{\"comm\": \"x\"}");
	CU_ASSERT_EQUAL(profdata_load(&p, w.dir), -EPROTO);
	CU_ASSERT_EQUAL(p.ncalls, 0);
	/* A link in place of the window itself. */
	CU_ASSERT_EQUAL(symlink(w.dir, at(&w, "link")), 0);
	CU_ASSERT_NOT_EQUAL(profdata_load(&p, w.path), 0);
	remove_window(&w);
}

int register_profdata_tests(unsigned int *skipped)
{
	static const CU_TestInfo none[] = { CU_TEST_INFO_NULL };
	/* A window's files are opened with openat2(). */
	static const CU_TestInfo tests[] = {
		{ "a finished window loads whole", test_complete },
		{ "an unfinished window loads as incomplete", test_incomplete },
		{ "bad data files are read up to where they go bad", test_bad_data_files },
		{ "a foreign " PROFDIR_FACTS " is refused", test_bad_info },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("profdata", none, tests, unit_no_openat2(),
				 skipped);
}
