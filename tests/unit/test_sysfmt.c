// SPDX-License-Identifier: MIT
/* The host-sys sampler's lines (user/sys/sysfmt.c) and its /proc reads. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/proflayout.h"
#include "sys/sampler.h"
#include "sys/sysfmt.h"
#include "sys/sysread.h"
#include "unit.h"

#define STAT_TAIL " S 1 2 3 0 -1 4194560 10 0 0 0 7 5 0 0 20 0 3 0 100 1 2 3 4 5 " \
		  "6 7 0 0 0 0 0 0 0 0 17 1 0 0 9 0 0 0 0 0 0 0 0 0 0\n"

static void test_stat_clean(void)
{
	char line[512] = "123 (a b\ntime 1 \xff)) x)" STAT_TAIL;
	unsigned long long v;
	size_t n = sysfmt_stat_clean(line, strlen(line));

	/* The comm is all between the first '(' and the last ')'. */
	CU_ASSERT_EQUAL(n, strlen(line) - 1);
	CU_ASSERT_EQUAL(strncmp(line, "123 (a_b_time_1__))_x) S 1 ", 27), 0);
	CU_ASSERT_PTR_NULL(memchr(line, '\n', n));
	CU_ASSERT_TRUE(sysfmt_stat_field(line, n, 0, &v) && v == 123);
	CU_ASSERT_TRUE(sysfmt_stat_field(line, n, 13, &v) && v == 7);
	CU_ASSERT_TRUE(sysfmt_stat_field(line, n, 14, &v) && v == 5);
	CU_ASSERT_TRUE(sysfmt_stat_field(line, n, 38, &v) && v == 1);
	CU_ASSERT_TRUE(sysfmt_stat_field(line, n, 41, &v) && v == 9);
	CU_ASSERT_FALSE(sysfmt_stat_field(line, n, 2, &v));	/* "S" */
	CU_ASSERT_FALSE(sysfmt_stat_field(line, n, 90, &v));
	/* No comm, or text after it that is no field: no stat line. */
	strcpy(line, "123 no comm 1 2 3\n");
	CU_ASSERT_EQUAL(sysfmt_stat_clean(line, strlen(line)), 0);
	strcpy(line, "123 (x) 1 2 \x01\n");
	CU_ASSERT_EQUAL(sysfmt_stat_clean(line, strlen(line)), 0);
	strcpy(line, "123 (x)");
	CU_ASSERT_EQUAL(sysfmt_stat_clean(line, strlen(line)), 0);
}

static void test_comm_and_io(void)
{
	char comm[32] = "py thon\x7f\n", empty[4] = "";
	char io[] = "rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: 4096\n"
		    "write_bytes: 8192\ncancelled_write_bytes: 0\n";
	uint64_t r, w;

	sysfmt_comm_clean(comm);
	CU_ASSERT_STRING_EQUAL(comm, "py_thon_");
	sysfmt_comm_clean(empty);
	CU_ASSERT_STRING_EQUAL(empty, "_");
	CU_ASSERT_TRUE(sysfmt_io_parse(io, strlen(io), &r, &w));
	CU_ASSERT_EQUAL(r, 4096);
	CU_ASSERT_EQUAL(w, 8192);
	/* "cancelled_write_bytes" is no write_bytes. */
	CU_ASSERT_FALSE(sysfmt_io_parse("cancelled_write_bytes: 5\nread_bytes: 1\n",
					40, &r, &w));
}

static void test_lines(void)
{
	char room[512], small[8];
	struct sysbuf b = { room, 0, sizeof(room), false };
	struct sysbuf s = { small, 0, sizeof(small), false };
	struct sysfmt_disk d = {
		.real_ns = 0, .pid = 42, .prio = "be/4", .uid = 0,
		.read_bps = 512 * 1024, .write_bps = 3 * 1024 * 1024 / 2,
		/* 1.5 MiB is 1536 K: iotop takes the unit below 2048 of it. */
		.io_pct = 1.5, .comm = "python3",
	};
	const char dev[] = "Inter-|   Receive\n face |bytes\n    lo: 1 2 0 0 0 0 0 0 3 4 0 0 0 0 0 0\n"
			   "  eth0: 5 6 0 0 0 0 0 0 7 8 0 0 0 0 0 0\n  cut: 1";
	const char stat[] = "cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 1 1 1 1 1 1 1 1 1 1\nintr 5\ncpu9 1\n";

	sysfmt_disk_line(&b, &d);
	room[b.len] = '\0';
	/* iotop's columns: the analysis reads fields 1, 4-7 and 10. */
	CU_ASSERT_PTR_NOT_NULL(strstr(room, "      42 be/4 0            512.00 K/s    1536.00 K/s   0.00 %   1.50 % python3\n"));
	CU_ASSERT_EQUAL(room[2], ':');
	b.len = 0;
	d.io_pct = -1;
	d.read_bps = 100;
	sysfmt_disk_line(&b, &d);
	room[b.len] = '\0';
	CU_ASSERT_PTR_NOT_NULL(strstr(room, "100.00 B/s"));
	CU_ASSERT_PTR_NOT_NULL(strstr(room, "  ?unavailable?  python3\n"));
	b.len = 0;
	sysfmt_netdev_lines(&b, dev, strlen(dev));
	room[b.len] = '\0';
	CU_ASSERT_STRING_EQUAL(room, "    lo: 1 2 0 0 0 0 0 0 3 4 0 0 0 0 0 0\n"
			       "  eth0: 5 6 0 0 0 0 0 0 7 8 0 0 0 0 0 0\n");
	b.len = 0;
	CU_ASSERT_EQUAL(sysfmt_cpu_lines(&b, stat, strlen(stat), false), 2);
	CU_ASSERT_EQUAL(b.len, 51);
	b.len = 0;
	CU_ASSERT_EQUAL(sysfmt_cpu_lines(&b, stat, strlen(stat), true), 1);
	b.len = 0;
	sysfmt_usage_head(&b, 123, 4, 10);
	sysfmt_usage_end(&b);
	room[b.len] = '\0';
	CU_ASSERT_STRING_EQUAL(room, "TimeStamp:123\nIndex:4\nDataLen:10\n\n");
	/* What does not fit cuts the chunk: it is then not written. */
	sysbuf_printf(&s, "%s", "longer than eight");
	CU_ASSERT_TRUE(s.full);
	sysbuf_add(&s, "x", 1);
	CU_ASSERT_EQUAL(s.len, 0);
}

/* Our own threads as the sampler reads them: each once, a stat line each. */
static void test_task(void)
{
	struct sysread_fds fds = { 0, 64 };
	struct sysread_task t;
	size_t i, lines = 0;

	CU_ASSERT_EQUAL_FATAL(sysread_task_open(&t, getpid()), 0);
	CU_ASSERT_EQUAL(sysread_task_update(&t, &fds), 0);
	CU_ASSERT_TRUE(t.n >= 1);
	for (i = 0; i < t.n; i++)
		lines += t.v[i].line && t.v[i].len > 50;
	CU_ASSERT_EQUAL(lines, t.n);
	CU_ASSERT_EQUAL(t.v[0].tid, getpid());
	/* Again: nothing ran but this thread, whose line is read again. */
	CU_ASSERT_EQUAL(sysread_task_update(&t, &fds), 0);
	CU_ASSERT_TRUE(fds.kept <= fds.max);
	sysread_task_close(&t, &fds);
	CU_ASSERT_EQUAL(fds.kept, 0);
	CU_ASSERT_EQUAL(sysread_task_open(&t, 0x7ffffff0), -ESRCH);
}

/* A worker that spins when told, and says when it sleeps again. */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int go, done, tid;
} spin = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0 };

static void *spinner(void *arg)
{
	struct timespec a, b;

	pthread_mutex_lock(&spin.mu);
	spin.tid = gettid();
	pthread_cond_broadcast(&spin.cv);
	while (spin.go >= 0) {
		while (!spin.go)
			pthread_cond_wait(&spin.cv, &spin.mu);
		if (spin.go < 0)
			break;
		pthread_mutex_unlock(&spin.mu);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
		do
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
		while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < 30000000L);
		pthread_mutex_lock(&spin.mu);
		spin.go = 0;
		spin.done++;
		pthread_cond_broadcast(&spin.cv);
	}
	pthread_mutex_unlock(&spin.mu);
	return arg;
}

/* The kernel's utime + stime of our thread tid, read now. */
static unsigned long long ticks_now(int tid)
{
	char path[64], line[SYSREAD_LINE_MAX];
	unsigned long long u = 0, s = 0;
	size_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fp = fopen(path, "re");
	if (!fp)
		return 0;
	n = fread(line, 1, sizeof(line) - 1, fp);
	fclose(fp);
	n = sysfmt_stat_clean(line, n);
	sysfmt_stat_field(line, n, 13, &u);
	sysfmt_stat_field(line, n, 14, &s);
	return u + s;
}

/*
 * Idle threads are not read when the task's CPU time says only the active
 * ran, yet a thread that woke and spun is read again: its line is what
 * the kernel says once it sleeps.
 */
static void test_idle_gate(void)
{
	struct sysread_fds fds = { 0, 64 };
	struct sysread_task t;
	unsigned long long u, s;
	pthread_t th;
	size_t i;
	int round;

	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, spinner, NULL), 0);
	pthread_mutex_lock(&spin.mu);
	while (!spin.tid)
		pthread_cond_wait(&spin.cv, &spin.mu);
	pthread_mutex_unlock(&spin.mu);
	CU_ASSERT_EQUAL_FATAL(sysread_task_open(&t, getpid()), 0);
	CU_ASSERT_EQUAL(sysread_task_update(&t, &fds), 0);
	CU_ASSERT_EQUAL(sysread_task_update(&t, &fds), 0);
	CU_ASSERT_TRUE(t.gated);
	for (round = 0; round < 3; round++) {
		pthread_mutex_lock(&spin.mu);
		spin.go = 1;
		pthread_cond_broadcast(&spin.cv);
		while (spin.done <= round)
			pthread_cond_wait(&spin.cv, &spin.mu);
		pthread_mutex_unlock(&spin.mu);
		CU_ASSERT_EQUAL(sysread_task_update(&t, &fds), 0);
		for (i = 0; i < t.n && t.v[i].tid != spin.tid; i++)
			;
		CU_ASSERT_FATAL(i < t.n);
		/* It sleeps now: what was read is what the kernel says. */
		CU_ASSERT_TRUE(sysfmt_stat_field(t.v[i].line, t.v[i].len, 13, &u));
		CU_ASSERT_TRUE(sysfmt_stat_field(t.v[i].line, t.v[i].len, 14, &s));
		CU_ASSERT_EQUAL(u + s, ticks_now(spin.tid));
		CU_ASSERT_TRUE(u + s >= (unsigned long long)(round + 1) * 2);
	}
	pthread_mutex_lock(&spin.mu);
	spin.go = -1;
	pthread_cond_broadcast(&spin.cv);
	pthread_mutex_unlock(&spin.mu);
	pthread_join(th, NULL);
	sysread_task_close(&t, &fds);
}

static off_t size_of(int dir, const char *path)
{
	struct stat st;

	return fstatat(dir, path, &st, AT_SYMLINK_NOFOLLOW) ? -1 : st.st_size;
}

/* The sampler on ourselves into a PROF_-like directory, then removed. */
static void test_sampler(void)
{
	struct hostsys_conf c = {
		.items = 1u << HOSTSYS_CPU | 1u << HOSTSYS_MEM | 1u << HOSTSYS_OSRT,
		.usage_freq_hz = 50,
	};
	char base[] = "/tmp/msprof-unit-XXXXXX";
	struct timespec pause = { 0, 60 * 1000000 };
	struct sys_sampler *s;
	struct sys_result r;
	int dir;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(base));
	dir = open(base, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(dir >= 0);
	mkdirat(dir, PROFDIR_HOST, 0750);
	mkdirat(dir, PROFDIR_HOST_DATA, 0750);
	CU_ASSERT_TRUE(sys_sampler_wanted(&c));
	CU_ASSERT_EQUAL_FATAL(sys_sampler_start(&s, &c), 0);
	CU_ASSERT_EQUAL(sys_sampler_add(s, getpid(), dir), 0);
	nanosleep(&pause, NULL);
	CU_ASSERT_EQUAL(sys_sampler_remove(s, getpid(), false, &r), 0);
	CU_ASSERT_TRUE(r.samples >= 1);
	CU_ASSERT_FALSE(r.ended);
	CU_ASSERT_EQUAL(r.err, 0);
	CU_ASSERT_EQUAL(sys_sampler_remove(s, getpid(), false, &r), -ENOENT);
	CU_ASSERT_TRUE(size_of(dir, PROFDIR_HOST_DATA "/host_cpu.data.slice_0") > 0);
	CU_ASSERT_TRUE(size_of(dir, PROFDIR_HOST_DATA "/host_mem.data.slice_0") > 0);
	/* osrt is others': no file of it, nor of what was not asked. */
	CU_ASSERT_EQUAL(size_of(dir, PROFDIR_HOST_DATA "/host_disk.data.slice_0"), -1);
	/* A window dropped takes its files along. */
	CU_ASSERT_EQUAL(sys_sampler_add(s, getpid(), dir), 0);
	nanosleep(&pause, NULL);
	CU_ASSERT_EQUAL(sys_sampler_remove(s, getpid(), true, &r), 0);
	sys_sampler_stop(s);
	unlinkat(dir, PROFDIR_HOST_DATA "/host_cpu.data.slice_0", 0);
	unlinkat(dir, PROFDIR_HOST_DATA "/host_mem.data.slice_0", 0);
	CU_ASSERT_EQUAL(unlinkat(dir, PROFDIR_HOST_DATA, AT_REMOVEDIR), 0);
	unlinkat(dir, PROFDIR_HOST, AT_REMOVEDIR);
	close(dir);
	CU_ASSERT_EQUAL(rmdir(base), 0);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "a stat line's comm made safe, its fields", test_stat_clean },
		{ "comm and io", test_comm_and_io },
		{ "iotop, net/dev, cpu and usage lines", test_lines },
		{ "a task's threads read, fds counted", test_task },
		{ "idle threads not read, one that woke read again", test_idle_gate },
		CU_TEST_INFO_NULL,
	};
	static const CU_TestInfo needy[] = {
		{ "the sampler on ourselves, removed, dropped", test_sampler },
		CU_TEST_INFO_NULL,
	};

	return add_suite_needing("sysfmt", tests, needy, unit_no_openat2(), skipped);
}

UNIT_SUITE(register_tests)
