// SPDX-License-Identifier: MIT
/*
 * The timeline's text for a small window: msprof's numbering, key order,
 * args and flows, and names a task or a name record chose escaped.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/comm.h"
#include "export/profdata.h"
#include "export/timeline.h"
#include "msprof/probe_packs.h"
#include "common/proflayout.h"
#include "json_reader.h"
#include "unit.h"
#include "window_fixture.h"

/*
 * pid 5 (in its namespace); epoch = 1 ms + monotonic ns.  An acl call (ns tid 3) whose name
 * needs escaping copies 4096 bytes host to device; its copy task runs
 * 2000..3000; one ioctl; 3 host events lost.
 */
static void make_window(char *dir)
{
	static const char names[] = "acl\"x\0count\0kind\0\0\0\0";
	struct {
		struct msprof_name_rec h;
		char names[sizeof(names)];
	} nr = { .h = { .layer = MSPROF_LAYER_ACL,
			.arg_kinds = { MSPROF_ARG_UINT, MSPROF_ARG_UINT } } };
	struct msprof_api_event api = {
		.kind = MSPROF_EV_API, .tgid = 77, .tid = 7, .ns_tid = 3,
		.start_ns = 500, .end_ns = 1500, .args = { 4096, 1 },
	};
	struct msprof_ioctl_event io = {
		.kind = MSPROF_EV_IOCTL, .fd = 4, .tgid = 77, .tid = 7,
		.start_ns = 900, .end_ns = 1100, .cmd = 0xc0105901,
		.dev = MSPROF_KDEV(240, 0),
	};
	struct {
		struct msprof_devtask_rec h;
		char name[8];
	} dt = { .h = { .host_tid = 3, .submit_ns = 1000, .start_ns = 2000,
			.end_ns = 3000 }, .name = "MEMCPY\x01" };
	char path[128];
	struct recfile *f;

	memcpy(nr.names, names, sizeof(names));
	/* The task is 5 in its namespace, 77 to msprof: 5 numbers its pids. */
	unit_window_dirs(dir, "{\"pid\": 77, \"ns_pid\": 5, \"comm\": \"t\", "
	    "\"start\": {\"mono_ns\": 0, \"raw_ns\": 0, \"real_ns\": 1000000}, "
	    "\"host\": {\"lost_events\": 3}}");
	snprintf(path, sizeof(path), "%s/" PROFDIR_HOST_FILE, dir);
	CU_ASSERT_EQUAL_FATAL(recfile_create(&f, path), 0);
	CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_NAME, &nr, sizeof(nr), NULL, 0), 0);
	CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_API, &api, sizeof(api), NULL, 0), 0);
	CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_IOCTL, &io, sizeof(io), NULL, 0), 0);
	CU_ASSERT_EQUAL(recfile_close(f), 0);
	unit_put_records(dir, "device_0/" PROFDIR_DEVICE_FILE, MSPROF_REC_DEVTASK,
		    &dt, sizeof(dt));
}

static void test_events(void)
{
	/* pids: 5 << 10 | sort << 5 | device (31: host). */
	static const char *const want[] = {
		"\n{\"name\":\"process_name\",\"pid\":5375,\"tid\":0,\"ph\":\"M\",\"args\":{\"name\":\"CANN\"}},",
		"\n{\"name\":\"process_labels\",\"pid\":5375,\"tid\":0,\"ph\":\"M\",\"args\":{\"labels\":\"CPU\"}},",
		"\n{\"name\":\"process_sort_index\",\"pid\":5375,\"tid\":0,\"ph\":\"M\",\"args\":{\"sort_index\":7}},",
		"\n{\"name\":\"thread_name\",\"pid\":5375,\"tid\":3,\"ph\":\"M\",\"args\":{\"name\":\"Thread 3\"}},",
		"\n{\"name\":\"process_labels\",\"pid\":5568,\"tid\":0,\"ph\":\"M\",\"args\":{\"labels\":\"NPU 0\"}},",
		"\n{\"name\":\"thread_name\",\"pid\":5568,\"tid\":0,\"ph\":\"M\",\"args\":{\"name\":\"Stream 0\"}},",
		"\n{\"name\":\"process_name\",\"pid\":6112,\"tid\":0,\"ph\":\"M\",\"args\":{\"name\":\"Overlap Analysis\"}},",
		"\n{\"name\":\"thread_name\",\"pid\":6112,\"tid\":2,\"ph\":\"M\",\"args\":{\"name\":\"Communication(Not Overlapped)\"}},",
		"\n{\"name\":\"AscendCL@acl\\\"x\",\"pid\":5375,\"tid\":3,\"ts\":\"1000.500\",\"dur\":1.000,\"ph\":\"X\",\"args\":{\"Thread Id\":3,\"Mode\":\"ACL_OTHERS\",\"level\":\"acl\",\"id\":\"acl\\\"x\",\"item_id\":\"0\",\"connection_id\":1,\"return\":0,\"depth\":0,\"count\":4096,\"kind\":1}},",
		"\n{\"name\":\"ioctl\",\"pid\":5567,\"tid\":7,\"ts\":\"1000.900\",\"dur\":0.200,\"ph\":\"X\",\"args\":{\"fd\":4,\"cmd\":\"0xc0105901\",\"dir\":3,\"type\":89,\"nr\":1,\"size\":16,\"dev\":\"240:0\",\"return\":0}},",
		"\n{\"name\":\"process_name\",\"pid\":5567,\"tid\":0,\"ph\":\"M\",\"args\":{\"name\":\"OS Runtime API\"}},",
		"\n{\"name\":\"thread_name\",\"pid\":5567,\"tid\":7,\"ph\":\"M\",\"args\":{\"name\":\"Thread 7\"}},",
		"\n{\"name\":\"MEMCPY\\u0001\",\"pid\":5568,\"tid\":0,\"ts\":\"1002.000\",\"dur\":1.000,\"ph\":\"X\",\"args\":{\"Model Id\":4294967295,\"Task Type\":\"MEMCPY_ASYNC\",\"Physic Stream Id\":0,\"Task Id\":0,\"Batch Id\":0,\"Subtask Id\":4294967295,\"connection_id\":1,\"size(B)\":4096,\"bandwidth(GB/s)\":4.096,\"operation\":\"host to device\",\"block_dim\":0,\"host_tid\":3}},",
		"\n{\"name\":\"HostToDevice4294967296\",\"pid\":5375,\"tid\":3,\"ph\":\"s\",\"cat\":\"HostToDevice\",\"id\":\"4294967296\",\"ts\":\"1000.500\"},",
		"\n{\"name\":\"HostToDevice4294967296\",\"pid\":5568,\"tid\":0,\"ph\":\"f\",\"cat\":\"HostToDevice\",\"id\":\"4294967296\",\"ts\":\"1002.000\",\"bp\":\"e\"},",
		/* A copy is no computing: the device's span is all Free. */
		"\n{\"name\":\"Free\",\"pid\":6112,\"tid\":3,\"ts\":\"1002.000\",\"dur\":1.000,\"ph\":\"X\",\"args\":{}},",
		"\n{\"name\":\"msprof: 3 host events lost (ring buffer full)\",\"pid\":5375,\"tid\":0,\"ts\":\"1003.000\",\"ph\":\"i\",\"s\":\"g\",\"args\":{\"lost_events\":3}},",
		"\n{\"name\":\"thread_name\",\"pid\":5375,\"tid\":0,\"ph\":\"M\",\"args\":{\"name\":\"msprof\"}},",
	};
	char dir[] = "/tmp/msprof-tl-XXXXXX", cmd[64], *text = NULL;
	struct profdata p;
	size_t len = 0, i;
	FILE *fp;

	make_window(dir);
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, dir), 0);
	fp = open_memstream(&text, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	CU_ASSERT_EQUAL(timeline_write(fp, &p), 0);
	CU_ASSERT_EQUAL(fclose(fp), 0);
	CU_ASSERT(len > 3 && text[0] == '[' && !strcmp(text + len - 3, "\n]\n"));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(text, want[i])) {
			printf("\nmissing: %s\n", want[i] + 1);
			CU_FAIL("an event is missing");
		}
	/* Nothing on Computing or Communication, nothing twice. */
	CU_ASSERT_PTR_NULL(strstr(text, "\"name\":\"Computing\",\"pid\":6112,\"tid\":0,\"ts\""));
	CU_ASSERT_PTR_NULL(strstr(strstr(text, want[0]) + strlen(want[0]), want[0]));
	free(text);
	profdata_free(&p);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* Lines of text holding what (line by line: ASan's strstr is quadratic). */
static size_t count(const char *text, const char *what)
{
	size_t n = 0, wlen = strlen(what);
	const char *end;

	for (; *text; text = *end ? end + 1 : end) {
		end = strchrnul(text, '\n');
		n += memmem(text, (size_t)(end - text), what, wlen) != NULL;
	}
	return n;
}

/* A device file naming many streams: each named once, none lost. */
static void test_many_streams(void)
{
	enum { TASKS = 50000 };
	struct {
		struct msprof_devtask_rec h;
		char name[2];
	} dt = { .name = "k" };
	char dir[] = "/tmp/msprof-tl-XXXXXX", path[128], cmd[64], *text = NULL;
	struct profdata p;
	struct recfile *f;
	size_t len = 0;
	FILE *fp;
	int i;

	make_window(dir);
	snprintf(path, sizeof(path), "%s/device_0/" PROFDIR_DEVICE_FILE, dir);
	CU_ASSERT_EQUAL_FATAL(recfile_create(&f, path), 0);
	for (i = 0; i < TASKS; i++) {
		/* Streams in an order sorted insertion would suffer most from. */
		dt.h.stream = (uint32_t)(TASKS - i / 2);
		dt.h.start_ns = 10000 + (uint64_t)i;
		dt.h.end_ns = dt.h.start_ns + 1;
		CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_DEVTASK, &dt, sizeof(dt), NULL, 0), 0);
	}
	CU_ASSERT_EQUAL(recfile_close(f), 0);
	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, dir), 0);
	fp = open_memstream(&text, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	CU_ASSERT_EQUAL(timeline_write(fp, &p), 0);
	CU_ASSERT_EQUAL(fclose(fp), 0);
	CU_ASSERT_EQUAL(count(text, "\"args\":{\"name\":\"Stream "), TASKS / 2);
	CU_ASSERT_EQUAL(count(text, "\"args\":{\"name\":\"Stream 25001\"}"), 1);
	CU_ASSERT_EQUAL(count(text, "\"Task Type\":\"AI_CORE\""), TASKS);
	free(text);
	profdata_free(&p);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/*
 * A JSON reader just strict enough to say the timeline is JSON (RFC 8259:
 * no raw control bytes in strings, numbers as the grammar has them) and to
 * pick out the keys the checks below need.
 */
static void test_json_reader(void)
{
	static const char *const bad[] = {
		"", "[", "[{}", "[{},]", "[{\"a\":1,}]", "[{\"a\" 1}]", "[1]",
		"[{\"a\":\"x\ny\"}]", "[{\"a\":01}]", "[{\"a\":1.}]", "[{\"a\":\"\\x\"}]",
		"[{\"a\":\"\\u12\"}]", "[{}] x", "[{\"a\":tru}]", "{}",
	};
	struct evs *e = calloc(1, sizeof(*e));
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT(unit_json_events("[]", e) && e->n == 0);
	CU_ASSERT(unit_json_events(" [ {\"name\":\"a\\\"\\u0001\",\"pid\":5,\"ts\":\"1.000\","
			      "\"args\":{\"x\":[1,-2.5e3,true,null,{}]}} , {} ]\n", e));
	CU_ASSERT_EQUAL(e->n, 2);
	CU_ASSERT_STRING_EQUAL(e->v[0].name, "a\\\"\\u0001");
	CU_ASSERT(e->v[0].pid == 5 && !*e->v[0].tid_text);
	CU_ASSERT_STRING_EQUAL(e->v[0].ts, "1.000");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (unit_json_events(bad[i], e))
			printf("\n  read as JSON: %s", bad[i]);
		CU_ASSERT_FALSE(unit_json_events(bad[i], e));
	}
	free(e);
}

/* µs with exactly 3 decimals, as msprof writes ts (a string) and dur. */
static bool us3(const char *s)
{
	size_t n = strspn(s, "0123456789");

	return n > 0 && s[n] == '.' && strspn(s + n + 1, "0123456789") == 3 &&
	       !s[n + 4];
}

static const struct ev *find_meta(const struct evs *e, const char *name,
				  long long pid, long long tid)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].ph, "M") && !strcmp(e->v[i].name, name) &&
		    e->v[i].pid == pid && e->v[i].tid == tid)
			return &e->v[i];
	return NULL;
}

/* ns pid 5: msprof's pids are 5 << 10 | sort index << 5 | device. */
#define TL_PID(sort, dev) (5LL << 10 | (sort) << 5 | (dev))

/*
 * Two threads calling (one call inside another), tasks on two devices and
 * streams launched from them, one task no call launched, two ioctl threads.
 */
static void make_busy_window(char *dir)
{
	static const char names[] = "aclrtLaunchKernel\0\0\0\0\0\0";
	struct {
		struct msprof_name_rec h;
		char names[sizeof(names)];
	} nr = { .h = { .layer = MSPROF_LAYER_ACL } };
	static const struct {
		uint32_t ns_tid, depth;
		uint64_t start, end;
	} calls[] = {
		{ 3, 1, 600, 900 }, { 3, 0, 500, 1500 }, { 4, 0, 2000, 2600 },
	};
	static const struct {
		uint32_t device, stream, host_tid;
		uint64_t submit, start, end;
	} tasks[] = {
		{ 0, 0, 3, 700, 2000, 3000 },	/* from the inner call */
		{ 0, 2, 4, 2100, 3000, 3500 },
		{ 1, 5, 3, 1200, 1300, 1400 },	/* from the outer one */
		{ 1, 5, 9, 1200, 1500, 1600 },	/* from no call seen */
	};
	struct {
		struct msprof_devtask_rec h;
		char name[8];
	} dt = { .name = "kernel" };
	struct msprof_api_event api = { .kind = MSPROF_EV_API, .tgid = 77 };
	struct msprof_ioctl_event io = { .kind = MSPROF_EV_IOCTL, .tgid = 77,
					 .start_ns = 900, .end_ns = 1000 };
	char path[160];
	struct recfile *f;
	size_t i;

	memcpy(nr.names, names, sizeof(names));
	make_window(dir);
	snprintf(path, sizeof(path), "%s/" PROFDIR_HOST_FILE, dir);
	CU_ASSERT_EQUAL_FATAL(recfile_create(&f, path), 0);
	CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_NAME, &nr, sizeof(nr), NULL, 0), 0);
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		api.tid = calls[i].ns_tid + 100;
		api.ns_tid = calls[i].ns_tid;
		api.depth = calls[i].depth;
		api.start_ns = calls[i].start;
		api.end_ns = calls[i].end;
		CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_API, &api, sizeof(api), NULL, 0), 0);
	}
	for (i = 7; i <= 8; i++) {
		io.tid = (uint32_t)i;
		CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_IOCTL, &io, sizeof(io), NULL, 0), 0);
	}
	CU_ASSERT_EQUAL(recfile_close(f), 0);
	snprintf(path, sizeof(path), "%s/device_0/" PROFDIR_DEVICE_FILE, dir);
	CU_ASSERT_EQUAL_FATAL(recfile_create(&f, path), 0);
	for (i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++) {
		dt.h.device = tasks[i].device;
		dt.h.stream = tasks[i].stream;
		dt.h.host_tid = tasks[i].host_tid;
		dt.h.submit_ns = tasks[i].submit;
		dt.h.start_ns = tasks[i].start;
		dt.h.end_ns = tasks[i].end;
		CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_DEVTASK, &dt, sizeof(dt), NULL, 0), 0);
	}
	CU_ASSERT_EQUAL(recfile_close(f), 0);
}

/* The timeline of the window in dir, read back as events. */
static char *timeline_of(const char *dir, struct evs *e)
{
	struct profdata p;
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	CU_ASSERT_EQUAL_FATAL(profdata_load(&p, dir), 0);
	fp = open_memstream(&text, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	CU_ASSERT_EQUAL(timeline_write(fp, &p), 0);
	CU_ASSERT_EQUAL(fclose(fp), 0);
	profdata_free(&p);
	if (!unit_json_events(text, e)) {
		printf("\n  not JSON:\n%s", text);
		CU_FAIL("the timeline is not a JSON array of events");
	}
	return text;
}

/* Every event's times, pid and thread as a reader of the format needs. */
static void check_events(const struct evs *e)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		const struct ev *v = &e->v[i];
		long long sort = v->pid >> 5 & 31, dev = v->pid & 31;

		CU_ASSERT(*v->pid_text && *v->tid_text && *v->name && *v->ph);
		CU_ASSERT_EQUAL(v->pid >> 10, 5);
		CU_ASSERT(sort == 7 || sort == 13 || sort == 14 || sort == 31);
		/* Host processes carry device 31; devices their number. */
		CU_ASSERT(sort == 7 || sort == 13 ? dev == 31 : dev < 31);
		if (!strcmp(v->ph, "M")) {
			CU_ASSERT(!*v->ts && !*v->dur);
			/* Named once. */
			CU_ASSERT_PTR_EQUAL(find_meta(e, v->name, v->pid, v->tid), v);
			continue;
		}
		if (!us3(v->ts) || (*v->dur && !us3(v->dur)))
			printf("\n  %s: ts %s, dur %s", v->name, v->ts, v->dur);
		CU_ASSERT(us3(v->ts));
		CU_ASSERT(!strcmp(v->ph, "X") == (*v->dur != '\0'));
		/* Every thread with events is named, in a named process. */
		if (!find_meta(e, "thread_name", v->pid, v->tid))
			printf("\n  %s: pid %lld tid %lld has no name", v->name, v->pid, v->tid);
		CU_ASSERT_PTR_NOT_NULL(find_meta(e, "thread_name", v->pid, v->tid));
		CU_ASSERT_PTR_NOT_NULL(find_meta(e, "process_name", v->pid, 0));
	}
}

/* Flows start on a host call, finish on a device task: pairs of one id. */
static size_t check_flows(const struct evs *e)
{
	size_t i, j, starts = 0, finishes;

	for (i = 0; i < e->n; i++) {
		const struct ev *s = &e->v[i];

		if (strcmp(s->ph, "s"))
			continue;
		starts++;
		CU_ASSERT(*s->id && !strcmp(s->cat, "HostToDevice"));
		CU_ASSERT_EQUAL(s->pid, TL_PID(7, 31));
		for (finishes = 0, j = 0; j < e->n; j++) {
			const struct ev *f = &e->v[j];

			if (strcmp(f->id, s->id) || j == i)
				continue;
			finishes++;
			CU_ASSERT_STRING_EQUAL(f->ph, "f");
			CU_ASSERT_STRING_EQUAL(f->name, s->name);
			CU_ASSERT_EQUAL(f->pid >> 5 & 31, 14);
			/* Launched before it ran. */
			CU_ASSERT(strtod(f->ts, NULL) >= strtod(s->ts, NULL));
		}
		CU_ASSERT_EQUAL(finishes, 1);
	}
	for (i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].ph, "f"))
			starts--;
	CU_ASSERT_EQUAL(starts, 0);	/* no finish without its start */
	for (i = 0, starts = 0; i < e->n; i++)
		starts += !strcmp(e->v[i].ph, "s");
	return starts;
}

static void test_busy_window(void)
{
	char dir[] = "/tmp/msprof-tl-XXXXXX", *text;
	struct evs *e = calloc(1, sizeof(*e));
	const struct ev *v;
	size_t i, flows;

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	make_busy_window(dir);
	text = timeline_of(dir, e);
	/* 3 calls, 2 ioctls, 4 tasks, 3 flows, overlap and metadata. */
	CU_ASSERT(e->n > 12 + 30);
	check_events(e);
	flows = check_flows(e);
	/* Three tasks came from calls, the fourth from none seen. */
	CU_ASSERT_EQUAL(flows, 3);
	for (i = 0; i < e->n; i++) {
		v = &e->v[i];
		if (!strcmp(v->ph, "s"))
			/* From the calling thread, as the task knows it. */
			CU_ASSERT(v->tid == 3 || v->tid == 4);
		if (!strcmp(v->ph, "f") && v->pid == TL_PID(14, 1))
			CU_ASSERT_EQUAL(v->tid, 5);
	}
	/* The threads and streams each named where their events are. */
	CU_ASSERT_PTR_NOT_NULL(find_meta(e, "thread_name", TL_PID(7, 31), 3));
	CU_ASSERT_PTR_NOT_NULL(find_meta(e, "thread_name", TL_PID(7, 31), 4));
	CU_ASSERT_PTR_NOT_NULL(find_meta(e, "thread_name", TL_PID(13, 31), 7));
	CU_ASSERT_PTR_NOT_NULL(find_meta(e, "thread_name", TL_PID(13, 31), 8));
	CU_ASSERT_PTR_NOT_NULL(find_meta(e, "thread_name", TL_PID(14, 0), 2));
	CU_ASSERT_PTR_NOT_NULL(find_meta(e, "thread_name", TL_PID(14, 1), 5));
	CU_ASSERT_PTR_NOT_NULL(find_meta(e, "process_name", TL_PID(31, 1), 0));
	/* The calls' span: 1 ms epoch + 500 ns, 1 µs long. */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"tid\":3,\"ts\":\"1000.500\",\"dur\":1.000,\"ph\":\"X\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"tid\":3,\"ts\":\"1000.600\",\"dur\":0.300,\"ph\":\"X\""));
	free(text);
	free(e);
	unit_remove_dir(dir);
}

/* The timeline of the window in dir passes the checks; dir is removed. */
static void check_window(const char *dir, size_t flows)
{
	struct evs *e = calloc(1, sizeof(*e));
	char *text;

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	text = timeline_of(dir, e);
	CU_ASSERT(e->n > 0);
	check_events(e);
	CU_ASSERT_EQUAL(check_flows(e), flows);
	free(text);
	free(e);
	unit_remove_dir(dir);
}

/* A window with nothing in it is still a timeline: an array of JSON. */
static void test_empty_window(void)
{
	char dir[] = "/tmp/msprof-tl-XXXXXX", path[160];
	struct recfile *f;

	make_window(dir);
	snprintf(path, sizeof(path), "%s/" PROFDIR_HOST_FILE, dir);
	CU_ASSERT_EQUAL_FATAL(recfile_create(&f, path), 0);
	CU_ASSERT_EQUAL(recfile_close(f), 0);
	snprintf(path, sizeof(path), "%s/device_0/" PROFDIR_DEVICE_FILE, dir);
	CU_ASSERT_EQUAL(unlink(path), 0);
	unit_put(dir, PROFDIR_FACTS, "{\"pid\": 77, \"ns_pid\": 5, \"comm\": \"t\", "
	    "\"start\": {\"mono_ns\": 0, \"raw_ns\": 0, \"real_ns\": 1000000}}");
	check_window(dir, 0);
}

/* The window test_events checks line by line passes the same checks. */
static void test_small_window_checks(void)
{
	char dir[] = "/tmp/msprof-tl-XXXXXX";

	make_window(dir);
	check_window(dir, 1);
}

/*
 * A collective: HcclAllReduce (ns tid 3, 500..1500) of 4096 FP32 on
 * communicator 0xc0 launches its task, 2000..3000, beside a kernel
 * 2500..2700; then a second, 4000..4500, whose call came before the
 * window (no call seen).
 */
/* A collective as msprof shows it: Communication process, op, flow, overlap. */
static void test_comm_events(void)
{
	/* pids: 5 << 10 | 16 << 5 | 0 = 5632 (Communication), 6112 overlap. */
	static const char *const want[] = {
		"\n{\"name\":\"process_name\",\"pid\":5632,\"tid\":0,\"ph\":\"M\",\"args\":{\"name\":\"Communication\"}},",
		"\n{\"name\":\"process_sort_index\",\"pid\":5632,\"tid\":0,\"ph\":\"M\",\"args\":{\"sort_index\":16}},",
		"\n{\"name\":\"thread_name\",\"pid\":5632,\"tid\":0,\"ph\":\"M\",\"args\":{\"name\":\"Group hccl_world_group Communication\"}},",
		"\n{\"name\":\"thread_name\",\"pid\":5632,\"tid\":1,\"ph\":\"M\",\"args\":{\"name\":\"Plane 0\"}},",
		/* The op whose call went unseen: after the groups, no group. */
		"\n{\"name\":\"thread_name\",\"pid\":5632,\"tid\":2,\"ph\":\"M\",\"args\":{\"name\":\"Communication\"}},",
		"\n{\"name\":\"hcom_allReduce__oup_0_1\",\"pid\":5632,\"tid\":0,\"ts\":\"1002.000\",\"dur\":1.000,\"ph\":\"X\",\"args\":{\"rank_size\":0,\"connection_id\":1,\"model id\":4294967295,\"data_type\":\"FP32\",\"alg_type\":\"N/A\",\"count\":4096,\"relay\":\"no\",\"retry\":\"no\"}},",
		"\n{\"name\":\"HostToDevice4294967296\",\"pid\":5375,\"tid\":3,\"ph\":\"s\",\"cat\":\"HostToDevice\",\"id\":\"4294967296\",\"ts\":\"1000.500\"},",
		"\n{\"name\":\"HostToDevice4294967296\",\"pid\":5632,\"tid\":0,\"ph\":\"f\",\"cat\":\"HostToDevice\",\"id\":\"4294967296\",\"ts\":\"1002.000\",\"bp\":\"e\"},",
		"\n{\"name\":\"hcom_allReduce_\",\"pid\":5632,\"tid\":1,\"ts\":\"1002.000\",\"dur\":1.000,\"ph\":\"X\",\"args\":{\"notify_id\":\"N/A\",\"duration estimated(us)\":0,\"stream id\":0,\"task id\":0,\"context id\":4294967295,\"task type\":\"hcom_allReduce_\",\"src rank\":2,\"dst rank\":4294967295,\"transport type\":\"LOCAL\",\"size(Byte)\":16384,\"data type\":\"FP32\",\"link type\":\"N/A\",\"bandwidth(GB/s)\":16.384,\"model id\":4294967295}},",
		"\n{\"name\":\"hcom_allReduce__N/A_0_1\",\"pid\":5632,\"tid\":2,\"ts\":\"1004.000\",\"dur\":0.500,",
		"\n{\"name\":\"Communication\",\"pid\":6112,\"tid\":1,\"ts\":\"1002.000\",\"dur\":1.000,\"ph\":\"X\",\"args\":{}},",
		"\n{\"name\":\"Communication(Not Overlapped)\",\"pid\":6112,\"tid\":2,\"ts\":\"1002.000\",\"dur\":0.500,\"ph\":\"X\",\"args\":{}},",
		"\n{\"name\":\"Computing\",\"pid\":6112,\"tid\":0,\"ts\":\"1002.500\",\"dur\":0.200,\"ph\":\"X\",\"args\":{}},",
		"\n{\"name\":\"Communication(Not Overlapped)\",\"pid\":6112,\"tid\":2,\"ts\":\"1002.700\",\"dur\":0.300,\"ph\":\"X\",\"args\":{}},",
		"\n{\"name\":\"Free\",\"pid\":6112,\"tid\":3,\"ts\":\"1003.000\",\"dur\":1.000,\"ph\":\"X\",\"args\":{}},",
	};
	char dir[] = "/tmp/msprof-tl-XXXXXX", *text;
	struct evs *e = calloc(1, sizeof(*e));
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	unit_comm_window(dir, "hcom_allReduce_");
	text = timeline_of(dir, e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(text, want[i])) {
			printf("\nmissing: %s\n", want[i] + 1);
			CU_FAIL("an event is missing");
		}
	/* The collective's flow ends at its op, not at its hardware task. */
	CU_ASSERT_EQUAL(count(text, "\"ph\":\"f\""), 1);
	free(text);
	free(e);
	unit_remove_dir(dir);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo plain[] = {
		{ "the tests' JSON reader refuses what is not JSON", test_json_reader },
		CU_TEST_INFO_NULL,
	};
	/* A window's files are read with openat2(). */
	static const CU_TestInfo tests[] = {
		{ "events as msprof writes them, names escaped", test_events },
		{ "many streams, each named once", test_many_streams },
		{ "JSON; ts, pids, flows and thread names hold", test_small_window_checks },
		{ "two threads, two devices: every flow a pair", test_busy_window },
		{ "an empty window is an empty timeline", test_empty_window },
		{ "a collective: Communication op, its flow, overlap", test_comm_events },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("timeline", plain, tests, unit_no_openat2(),
				 skipped);
}

UNIT_SUITE(register_tests)
