// SPDX-License-Identifier: MIT
/*
 * The timeline's text for a small window: msprof's numbering, key order,
 * args and flows, and names a task or a name record chose escaped.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/profdata.h"
#include "export/timeline.h"
#include "msprof/probe_packs.h"
#include "task/profdir.h"
#include "unit.h"

static void put(const char *dir, const char *name, const char *text)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "we");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	fputs(text, fp);
	CU_ASSERT_EQUAL(fclose(fp), 0);
}

static void put_records(const char *dir, const char *name, uint16_t type,
			const void *rec, size_t len)
{
	char path[128];
	struct recfile *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	CU_ASSERT_EQUAL_FATAL(recfile_create(&f, path), 0);
	CU_ASSERT_EQUAL(recfile_append(f, type, rec, len, NULL, 0), 0);
	CU_ASSERT_EQUAL(recfile_close(f), 0);
}

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
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/host", dir);
	CU_ASSERT_EQUAL(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/" PROFDIR_HOST_DATA, dir);
	CU_ASSERT_EQUAL(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/device_0", dir);
	CU_ASSERT_EQUAL(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/device_0/data", dir);
	CU_ASSERT_EQUAL(mkdir(path, 0700), 0);
	put(dir, PROFDIR_HOST_START, "{\"collectionTimeBegin\": \"1\", \"clockMonotonicRaw\": \"0\"}\n");
	/* The task is 5 in its namespace, 77 to msprof: 5 numbers its pids. */
	put(dir, PROFDIR_FACTS, "{\"pid\": 77, \"ns_pid\": 5, \"comm\": \"t\", "
	    "\"start\": {\"mono_ns\": 0, \"raw_ns\": 0, \"real_ns\": 1000000}, "
	    "\"host\": {\"lost_events\": 3}}");
	snprintf(path, sizeof(path), "%s/" PROFDIR_HOST_FILE, dir);
	CU_ASSERT_EQUAL_FATAL(recfile_create(&f, path), 0);
	CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_NAME, &nr, sizeof(nr), NULL, 0), 0);
	CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_API, &api, sizeof(api), NULL, 0), 0);
	CU_ASSERT_EQUAL(recfile_append(f, MSPROF_REC_IOCTL, &io, sizeof(io), NULL, 0), 0);
	CU_ASSERT_EQUAL(recfile_close(f), 0);
	put_records(dir, "device_0/" PROFDIR_DEVICE_FILE, MSPROF_REC_DEVTASK,
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

int register_timeline_tests(unsigned int *skipped)
{
	static const CU_TestInfo none[] = { CU_TEST_INFO_NULL };
	/* A window's files are read with openat2(). */
	static const CU_TestInfo tests[] = {
		{ "events as msprof writes them, names escaped", test_events },
		{ "many streams, each named once", test_many_streams },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("timeline", none, tests, unit_no_openat2(),
				 skipped);
}
