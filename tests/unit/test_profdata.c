// SPDX-License-Identifier: MIT
/* Reading PROF_ directories back, whole, in part, or not at all. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/naming.h"
#include "export/profdata.h"
#include "common/proflayout.h"
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
	CU_ASSERT_STRING_EQUAL(naming_devtask_name(&p, &p.tasks[0]), "kernel");
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

struct walked {
	const struct profdata *p;
	int n;
	int wrong;
};

static int check_conn(const struct msprof_api_event *e, uint64_t conn,
		      void *ctx)
{
	struct walked *w = ctx;
	const struct profcall *c = profdata_call(w->p, conn);

	w->n++;
	if (!c || c->ns_tid != e->ns_tid || c->start_ns != e->start_ns ||
	    c->depth != e->depth)
		w->wrong++;
	return 0;
}

/*
 * A walk names each call by its own place in the index: two threads'
 * nested calls written in the order they ended, one thread's after the
 * other's, so the walk goes back and forth between the index's halves.
 */
static void test_walk_conns(void)
{
	struct msprof_api_event e = { .kind = MSPROF_EV_API, .tgid = 77 };
	struct walked seen = { 0 };
	struct recfile *f;
	struct profdata p;
	struct window w;
	uint32_t tid;
	int i;

	make_window(&w, INFO_DONE, 0);
	CU_ASSERT_EQUAL(unlink(at(&w, PROFDIR_HOST_FILE)), 0);
	CU_ASSERT_EQUAL_FATAL(recfile_create(&f, w.path), 0);
	for (i = 0; i < 30; i++)
		for (tid = 7; tid <= 8; tid++) {
			e.tid = e.ns_tid = tid;
			e.depth = 1;
			e.start_ns = (uint64_t)i * 1000 + 100;
			e.end_ns = e.start_ns + 100;
			CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_API, &e, sizeof(e), NULL, 0), 0);
			e.depth = 0;
			e.start_ns -= 100;
			e.end_ns += 100;
			CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_API, &e, sizeof(e), NULL, 0), 0);
		}
	CU_ASSERT_EQUAL(recfile_close(f), 0);
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, w.dir), 0);
	seen.p = &p;
	CU_ASSERT_EQUAL(profdata_each_host(&p, check_conn, NULL, &seen), 0);
	CU_ASSERT_EQUAL(seen.n, 120);
	CU_ASSERT_EQUAL(seen.wrong, 0);
	profdata_free(&p);
	remove_window(&w);
}

/*
 * An index of calls as profdata_load_at() sorts it (by ns tid, start,
 * depth), built in memory: the lookups need nothing else.
 */
static const struct profcall lookup_calls[] = {
	{ .ns_tid = 3, .start_ns = 100, .end_ns = 500, .depth = 0 },	/* 1 */
	{ .ns_tid = 3, .start_ns = 150, .end_ns = 300, .depth = 1 },	/* 2 */
	{ .ns_tid = 3, .start_ns = 200, .end_ns = 250, .depth = 2 },	/* 3 */
	{ .ns_tid = 3, .start_ns = 600, .end_ns = 700, .depth = 0 },	/* 4 */
	/* Starting together: the inner one sorts after the outer. */
	{ .ns_tid = 4, .start_ns = 100, .end_ns = 1000, .depth = 0 },	/* 5 */
	{ .ns_tid = 4, .start_ns = 100, .end_ns = 200, .depth = 1 },	/* 6 */
	{ .ns_tid = 9, .start_ns = 50, .end_ns = 60, .depth = 0 },	/* 7 */
};

#define NR_LOOKUP (sizeof(lookup_calls) / sizeof(lookup_calls[0]))

static void lookup_data(struct profdata *p, size_t ncalls)
{
	memset(p, 0, sizeof(*p));
	p->calls = (struct profcall *)lookup_calls;
	p->ncalls = ncalls;
}

/* A connection id is the call's place in the index, plus 1. */
static void test_call_of_conn(void)
{
	static struct profdata p;
	size_t i;

	lookup_data(&p, NR_LOOKUP);
	CU_ASSERT_PTR_NULL(profdata_call(&p, 0));
	CU_ASSERT_PTR_EQUAL(profdata_call(&p, 1), &lookup_calls[0]);
	CU_ASSERT_PTR_EQUAL(profdata_call(&p, 4), &lookup_calls[3]);
	CU_ASSERT_PTR_EQUAL(profdata_call(&p, NR_LOOKUP), &lookup_calls[NR_LOOKUP - 1]);
	CU_ASSERT_PTR_NULL(profdata_call(&p, NR_LOOKUP + 1));
	CU_ASSERT_PTR_NULL(profdata_call(&p, UINT64_MAX));
	CU_ASSERT_PTR_NULL(profdata_call(&p, (uint64_t)1 << 32));
	for (i = 0; i < NR_LOOKUP; i++)
		CU_ASSERT_PTR_EQUAL(profdata_call(&p, i + 1), &lookup_calls[i]);
	/* Nothing loaded: no connection id names a call. */
	lookup_data(&p, 0);
	CU_ASSERT_PTR_NULL(profdata_call(&p, 0));
	CU_ASSERT_PTR_NULL(profdata_call(&p, 1));
}

/* The innermost call on the thread that holds the instant, or none. */
static void test_conn_at(void)
{
	static const struct {
		uint32_t tid;
		uint64_t ns;
		uint64_t conn;
	} cases[] = {
		{ 3, 99, 0 },		/* before the thread's first call */
		{ 3, 100, 1 },		/* a span holds its start... */
		{ 3, 149, 1 },
		{ 3, 150, 2 },
		{ 3, 200, 3 },		/* the innermost of three */
		{ 3, 250, 3 },		/* ...and its end */
		{ 3, 251, 2 },		/* the inner one ended: its caller */
		{ 3, 301, 1 },
		{ 3, 500, 1 },
		{ 3, 501, 0 },		/* between two outermost calls */
		{ 3, 650, 4 },
		{ 3, 700, 4 },
		{ 3, 701, 0 },		/* after the thread's last call */
		{ 3, UINT64_MAX, 0 },
		{ 4, 99, 0 },
		{ 4, 100, 6 },		/* the same start: the inner one */
		{ 4, 200, 6 },
		{ 4, 201, 5 },
		{ 4, 1000, 5 },
		{ 4, 1001, 0 },
		{ 9, 55, 7 },		/* the last call of the index */
		{ 9, 61, 0 },
		/* Threads without calls, before, between and after the others. */
		{ 2, 100, 0 },
		{ 5, 150, 0 },
		{ 10, 55, 0 },
		{ 0, 0, 0 },
		{ UINT32_MAX, UINT64_MAX, 0 },
	};
	static struct profdata p;
	size_t i;

	lookup_data(&p, NR_LOOKUP);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t conn = profdata_conn_at(&p, cases[i].tid, cases[i].ns);

		if (conn != cases[i].conn)
			printf("\n  tid %u at %llu: connection %llu, not %llu",
			       cases[i].tid, (unsigned long long)cases[i].ns,
			       (unsigned long long)conn,
			       (unsigned long long)cases[i].conn);
		CU_ASSERT_EQUAL(conn, cases[i].conn);
	}
	/* Found again from its own start: each call, or a deeper one there. */
	for (i = 0; i < NR_LOOKUP; i++) {
		const struct profcall *c = profdata_call(&p, profdata_conn_at(&p,
				lookup_calls[i].ns_tid, lookup_calls[i].start_ns));

		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		CU_ASSERT_EQUAL(c->ns_tid, lookup_calls[i].ns_tid);
		CU_ASSERT(c->depth >= lookup_calls[i].depth);
	}
	/* One call only, and none at all. */
	lookup_data(&p, 1);
	CU_ASSERT_EQUAL(profdata_conn_at(&p, 3, 400), 1);
	CU_ASSERT_EQUAL(profdata_conn_at(&p, 3, 600), 0);
	lookup_data(&p, 0);
	CU_ASSERT_EQUAL(profdata_conn_at(&p, 3, 100), 0);
	CU_ASSERT_EQUAL(profdata_conn_at(&p, 0, 0), 0);
}

static void test_sort_unique(void)
{
	uint32_t v[] = { 9, 3, 9, UINT32_MAX, 0, 3, 3, 0 };
	uint32_t same[] = { 7, 7, 7 };
	uint32_t one[] = { 5 };

	CU_ASSERT_EQUAL_FATAL(profdata_sort_unique(v, 8), 4);
	CU_ASSERT(v[0] == 0 && v[1] == 3 && v[2] == 9 && v[3] == UINT32_MAX);
	CU_ASSERT_EQUAL(profdata_sort_unique(same, 3), 1);
	CU_ASSERT_EQUAL(same[0], 7);
	CU_ASSERT_EQUAL(profdata_sort_unique(one, 1), 1);
	CU_ASSERT_EQUAL(one[0], 5);
	CU_ASSERT_EQUAL(profdata_sort_unique(NULL, 0), 0);
}

/* A copy by the runtime's code: a collective's task submitted as one too. */
static void test_is_copy(void)
{
	struct devop op = { .type = DT_MEMCPY_ASYNC };

	CU_ASSERT(devop_is_copy(&op));
	op.type = DT_HCCL;
	CU_ASSERT(!devop_is_copy(&op));
	op.rt_kind = DT_MEMCPY_ASYNC;
	CU_ASSERT(devop_is_copy(&op));
	op.type = DT_AI_CORE;	/* a node made it a kernel: no copy */
	CU_ASSERT(!devop_is_copy(&op));
	op.type = DT_MEMSET;
	op.rt_kind = DT_MEMSET;
	CU_ASSERT(!devop_is_copy(&op));
}

/* An argument by its name, as the API's name record gave it. */
static void test_arg(void)
{
	struct api_desc d = { .name = "HcclAllGather",
			      .args = { "send", NULL, "send_count", "dtype" } };
	struct msprof_api_event e = { .args = { 1, 2, 300, 4 } };
	uint64_t v = 0;

	CU_ASSERT(profdata_arg(&d, &e, "send_count", &v));
	CU_ASSERT_EQUAL(v, 300);
	CU_ASSERT(!profdata_arg(&d, &e, "count", &v));
	CU_ASSERT(!profdata_arg(NULL, &e, "dtype", &v));
	CU_ASSERT_EQUAL(v, 300);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo lookups[] = {
		{ "a connection id names its call", test_call_of_conn },
		{ "the innermost call holding an instant", test_conn_at },
		{ "thread lists sorted, repeats dropped", test_sort_unique },
		{ "a copy by the runtime's code, a collective's too", test_is_copy },
		{ "a call's argument by its name", test_arg },
		CU_TEST_INFO_NULL,
	};
	/* A window's files are opened with openat2(). */
	static const CU_TestInfo tests[] = {
		{ "a finished window loads whole", test_complete },
		{ "an unfinished window loads as incomplete", test_incomplete },
		{ "bad data files are read up to where they go bad", test_bad_data_files },
		{ "a foreign " PROFDIR_FACTS " is refused", test_bad_info },
		{ "a walk names each call by its place in the index", test_walk_conns },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("profdata", lookups, tests, unit_no_openat2(),
				 skipped);
}

UNIT_SUITE(register_tests)
