// SPDX-License-Identifier: MIT
/*
 * The host system files read back (user/export/hostsys*.c) as msprof's
 * Python analysis reads them, and the CSVs written from them; numbers
 * as Python prints them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/hostsys.h"
#include "export/hostsys_lines.h"
#include "export/summary.h"
#include "unit.h"

static void test_helpers(void)
{
	char line[] = "  a\tb  c d e", *f[3];

	CU_ASSERT_EQUAL(hs_split(line, f, 3), 3);
	CU_ASSERT_STRING_EQUAL(f[0], "a");
	CU_ASSERT_STRING_EQUAL(f[1], "b");
	CU_ASSERT_STRING_EQUAL(f[2], "c d e");	/* the rest in the last */
	CU_ASSERT_EQUAL((unsigned)hs_div_even(5, 2), 2);	/* a half to even */
	CU_ASSERT_EQUAL((unsigned)hs_div_even(7, 2), 4);
	CU_ASSERT_EQUAL((unsigned)hs_div_even(100000000, 6), 16666667);
}

/* A stream fed the lines of text as one slice. */
static void feed(const struct hs_stream *k, struct hs_src *s, const char *text)
{
	char *copy = strdup(text), *line, *nl;
	void *st = k->begin(s);

	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	for (line = copy; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		CU_ASSERT_EQUAL(k->line(st, s, line, (size_t)(nl - line)), 0);
	}
	CU_ASSERT_EQUAL(k->end(st, s), 0);
	free(copy);
}

/* Fields 15 to 37 (the exit signal, 17, last), the CPU (38) to follow. */
#define TAIL " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 "
static struct profdata *new_profdata(struct hostsys_data *h)
{
	struct profdata *p = calloc(1, sizeof(*p));

	memset(h, 0, sizeof(*h));
	h->cpu_nums = 2;
	h->clk_tck = 100;
	h->mem_total_kb = 16000000;
	return p;
}

static void test_cpu(void)
{
	struct hostsys_data h;
	struct profdata *p = new_profdata(&h);
	struct hs_src s = { .p = p, .h = &h, .file = "host/data/host_cpu.data.slice_0" };
	char text[2048];

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	/* utime, stime at fields 13 and 14, the CPU at 38. */
	snprintf(text, sizeof(text),
		 "time 1000\n100.00 5.00\n"
		 "10 (main) S 1 0 0 0 0 0 0 0 0 0 5 5" TAIL "0 0\n"
		 "11 (work) S 1 0 0 0 0 0 0 0 0 0 0 0" TAIL "1 0\n"
		 "time 2000\n100.02 5.00\n"
		 "10 (main) S 1 0 0 0 0 0 0 0 0 0 6 5" TAIL "0 0\n"
		 "11 (work) S 1 0 0 0 0 0 0 0 0 0 4 0" TAIL "1 0\n"
		 "time 3000\n100.05 5.00\n"
		 "10 (main) S 1 0 0 0 0 0 0 0 0 0 7 5" TAIL "0 0\n"
		 "11 (work) S 1 0 0 0 0 0 0 0 0 0 4 0" TAIL "1 0\n");
	feed(&hs_cpu_stream, &s, text);
	CU_ASSERT_EQUAL_FATAL(h.ncpu, 6);
	/* 2 jiffies: thread 10 ran 1 on CPU 0, 11 ran 4 on CPU 1, capped at 2. */
	CU_ASSERT(h.cpu[0].cpu == 0 && h.cpu[0].usage == 50.0 && h.cpu[0].start == 1000);
	CU_ASSERT(h.cpu[1].cpu == 1 && h.cpu[1].usage == 100.0 && h.cpu[1].end == 2000);
	CU_ASSERT(h.cpu[2].cpu == HS_CPU_AVG && h.cpu[2].usage == 75.0);
	/* 3 jiffies: 1 of them on CPU 0; the average over 2 CPUs, to 6 places. */
	CU_ASSERT(h.cpu[3].cpu == 0 && h.cpu[3].usage == 33.333333);
	CU_ASSERT(h.cpu[4].cpu == 1 && h.cpu[4].usage == 0.0);
	CU_ASSERT(h.cpu[5].cpu == HS_CPU_AVG && h.cpu[5].usage == 16.666667);
	/* A line that is no stat line is skipped and said. */
	feed(&hs_cpu_stream, &s, "time 4000\n1.00 1.00\nnot a stat line\n");
	CU_ASSERT_EQUAL(p->nproblems, 1);
	hostsys_free(NULL);
	free(h.cpu);
	free(p);
}

static void test_mem_net_disk(void)
{
	struct hostsys_data h;
	struct profdata *p = new_profdata(&h);
	struct hs_src s = { .p = p, .h = &h, .file = "f" };

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	feed(&hs_mem_stream, &s, "1000 9 2000 0 0 0 0 0\n2000 9 4000 0 0 0 0 0\n3000 9 1 0 0 0 0 0\n");
	/* The later sample's value at the earlier time. */
	CU_ASSERT_EQUAL_FATAL(h.nmem, 2);
	CU_ASSERT(h.mem[0].start == 1000 && h.mem[0].end == 2000 && h.mem[0].usage == 0.1);
	CU_ASSERT(h.mem[1].start == 2000 && h.mem[1].usage == 0.000025);

	h.ncards = 1;
	strcpy(h.card[0].name, "eth0");
	h.card[0].speed = 1000;
	feed(&hs_net_stream, &s,
	     "time 1000000000\n    lo: 9 0 0 0 0 0 0 0 9 0 0 0 0 0 0 0\n"
	     "  eth0: 1000 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	     "time 2000000000\n    lo: 99 0 0 0 0 0 0 0 99 0 0 0 0 0 0 0\n"
	     "  eth0: 1251000 0 0 0 0 0 0 0 1250000 0 0 0 0 0 0 0\n");
	/* 2.5 MB in 1 s of a 1000 Mb/s card (125 MB/s): 2 %; lo has no speed. */
	CU_ASSERT_EQUAL_FATAL(h.nnet, 1);
	CU_ASSERT_EQUAL(h.net[0].usage, 2.0);
	CU_ASSERT_EQUAL(h.net[0].speed, 2500000.0 / 1024);

	h.disk_freq = 50;
	feed(&hs_disk_stream, &s,
	     "Total DISK READ: 0.00 B/s\n"
	     "12:00:00 42 be/4 root 512.00 K/s 1.50 M/s 0.00 % 7.50 % a b\n"
	     "12:00:00 42 be/4 root 1024.00 B/s 0.00 B/s ?unavailable? a\n"
	     "start_time 5000\n");
	/* The slice's start_time, wherever it is; 20 ms a line. */
	CU_ASSERT_EQUAL_FATAL(h.ndisk, 2);
	CU_ASSERT(h.disk[0].start == 5000 && h.disk[0].end == 20005000);
	CU_ASSERT(h.disk[0].read == 512.0 && h.disk[0].write == 1536.0 && h.disk[0].usage == 7.5);
	CU_ASSERT(h.disk[1].start == 20005000 && h.disk[1].read == 1.0 && h.disk[1].usage == 0);
	free(h.mem);
	free(h.net);
	free(h.disk);
	free(p);
}

/* What a summary writes of h, NUL-ended in out. */
static void summary(int (*fn)(FILE *, const struct profdata *), struct profdata *p,
		    char *out, size_t len)
{
	FILE *fp = fmemopen(out, len, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	CU_ASSERT_EQUAL(fn(fp, p), 0);
	fputc('\0', fp);
	fclose(fp);
}

static void test_usage_and_csvs(void)
{
	struct hostsys_data h;
	struct profdata *p = new_profdata(&h);
	struct hs_src s = { .p = p, .h = &h, .file = "f", .pid = 7 };
	char out[1024];

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->hostsys = &h;
	feed(&hs_pid_cpu_stream, &s,
	     "TimeStamp:1\nIndex:0\nDataLen:9\n"
	     "7 (x) S 1 0 0 0 0 0 0 0 0 0 10 10 0 0 0\nProcessName:first:name\ncpu  100 0 100 0\n\n"
	     "TimeStamp:2\nIndex:1\nDataLen:9\n"
	     "7 (x) S 1 0 0 0 0 0 0 0 0 0 30 10 0 0 0\nProcessName:later\ncpu  200 0 200 0\n\n");
	feed(&hs_pid_mem_stream, &s,
	     "TimeStamp:1\nIndex:0\nDataLen:9\n10 5 3 0 0 0 0\nProcessName:m\n\n"
	     "TimeStamp:2\nIndex:1\nDataLen:9\n11 6 3 0 0 0 0\nProcessName:m\n\n");
	feed(&hs_sys_cpu_stream, &s,
	     "TimeStamp:1\nIndex:0\nDataLen:9\ncpu  1 0 1 2 0 0 0 0 0 0\ncpu0 1 0 1 2 0 0 0 0 0 0\n\n");
	feed(&hs_sys_mem_stream, &s,
	     "TimeStamp:1\nIndex:0\nDataLen:9\nMemTotal:       100 kB\nSwapCached:     5 kB\n"
	     "Cached:         7 kB\nHugePages_Total:       3\n\n"
	     "TimeStamp:2\nIndex:1\nDataLen:9\nMemTotal:       101 kB\nCached:         8 kB\n\n");
	h.files = HS_PID_CPU | HS_PID_MEM | HS_SYS_CPU | HS_SYS_MEM;
	/* (20/200 + 40/400) / 2, in %; the first row's name, colons dropped. */
	summary(summary_process_cpu_usage, p, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "Device_id,PID,Name,CPU(%)\nhost,7,firstname,10.0\n");
	/* Means by integer division, as SQLite's on INTEGER columns. */
	summary(summary_process_mem, p, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "Device_id,PID,Name,Size(pages),Resident(pages),Shared(pages)\n"
			       "host,7,m,10,5,3\n");
	summary(summary_cpu_usage, p, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "Device_id,Cpu Type,User(%),Sys(%),IoWait(%),Irq(%),Soft(%),Idle(%)\n"
			       "host,host,25.0,25.0,0.0,0.0,0.0,50.0\n");
	summary(summary_sys_mem, p, out, sizeof(out));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "Memory Total(kB),"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nhost,100,0,0,7,0,0,0,1,0\n"));
	free(h.procs);
	free(p);
}

static void test_peaks(void)
{
	struct hostsys_data h;
	struct profdata *p = new_profdata(&h);
	struct hs_mem_row rows[3] = { { 0, 1, 10.0 }, { 1, 2, 0 }, { 2, 3, 12.5 } };
	char out[512];

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->hostsys = &h;
	h.mem = rows;
	h.nmem = 3;
	/* Peak 12.5 % of 16 GB; recommend: the 98th of those above 0, / 0.8. */
	summary(summary_host_mem_usage, p, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "Device_id,Total Memory(KB),Peak Used Memory(KB),Recommend Memory(KB)\n"
			       "host,16000000,2000000.0,2500000.0\n");
	h.nmem = 0;
	summary(summary_host_mem_usage, p, out, sizeof(out));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "host,16000000,N/A,N/A\n"));
	/* No card with a speed: an int 0, as Python's sum starts. */
	summary(summary_host_network_usage, p, out, sizeof(out));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nhost,0,N/A,N/A\n"));
	free(p);
}

static int register_tests(unsigned int *skipped)
{
	static const CU_TestInfo tests[] = {
		{ "fields and Decimal's rounding", test_helpers },
		{ "host_cpu: per CPU, capped, averaged", test_cpu },
		{ "host_mem shifted, network, disk", test_mem_net_disk },
		{ "usage files and their CSVs", test_usage_and_csvs },
		{ "peak and recommend", test_peaks },
		CU_TEST_INFO_NULL,
	};

	(void)skipped;
	return add_suite("hostsys export", tests);
}

UNIT_SUITE(register_tests)
