// SPDX-License-Identifier: MIT
/* A device's metadata files, as a 910B runtime writes them (sheet §5, §6). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cann_meta.h"
#include "common/ctrlfile.h"
#include "common/rankid.h"
#include "common/json.h"

#define PLATFORM_VERSION	"5"	/* Ascend910B: stars_soc device data */
/* The first driver whose tasks the analysis matches by batch id (§4.2). */
#define DRV_VERSION		467473
/* The host clock's "frequency": 1000 MHz, so its records are taken as ns. */
#define HOST_MHZ		"1000"
/* What npusim's AI core would run at; only PMU data would use it. */
#define AIC_MHZ			"1850"

static void put_str_kv(FILE *fp, const char *key, const char *val)
{
	fprintf(fp, "\"%s\":", key);
	json_put_str(fp, val);
	fputc(',', fp);
}

static void read_comm(char *buf, size_t len)
{
	FILE *fp = fopen("/proc/self/comm", "re");

	buf[0] = '\0';
	if (fp) {
		if (fgets(buf, (int)len, fp))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(fp);
	}
}

static void put_device_info(FILE *fp, const void *ctx)
{
	const struct cann_meta *m = ctx;
	fprintf(fp, "\"DeviceInfo\":[{\"id\":%u,\"env_type\":3,"
		"\"ctrl_cpu_id\":\"npusim\",\"ctrl_cpu_core_num\":0,"
		"\"ctrl_cpu_endian_little\":1,\"ts_cpu_core_num\":0,"
		"\"ai_cpu_core_num\":0,\"ai_core_num\":1,\"ai_cpu_core_id\":0,"
		"\"ai_core_id\":0,\"aicpu_occupy_bitmap\":0,"
		"\"ctrl_cpu\":\"simulated NPU (npusim)\",\"ai_cpu\":\"\","
		"\"aiv_num\":1,\"hwts_frequency\":\"%u\","
		"\"aic_frequency\":\"" AIC_MHZ "\","
		"\"aiv_frequency\":\"" AIC_MHZ "\"}]", m->device, m->hwts_mhz);
}

/* One line: the analysis reads the first line of a JSON file only. */
static void put_info(FILE *fp, const void *ctx)
{
	const struct cann_meta *m = ctx;
	char host[256] = "", comm[64], os[2 * sizeof(((struct utsname *)0)->release)];
	static const char *const ranks[] = RANKID_ENV_NAMES;
	int rank = -1;
	struct utsname u;
	bool have_u = !uname(&u);
	size_t i;

	/* As msprof takes a task's rank from its environment. */
	for (i = 0; i < sizeof(ranks) / sizeof(ranks[0]) && rank < 0; i++)
		if (getenv(ranks[i]))
			rank = rankid_parse(getenv(ranks[i]));
	gethostname(host, sizeof(host) - 1);
	read_comm(comm, sizeof(comm));
	snprintf(os, sizeof(os), "%s", have_u ? u.sysname : "Linux");
	fputc('{', fp);
	put_str_kv(fp, "version", "1.0");
	put_str_kv(fp, "jobInfo", "NA");
	put_str_kv(fp, "OS", os);
	put_str_kv(fp, "hostname", host);
	put_str_kv(fp, "hwtype", have_u ? u.machine : "");
	fprintf(fp, "\"devices\":\"%u\",\"platform\":\"\","
		"\"platform_version\":\"" PLATFORM_VERSION "\","
		"\"cannVersion\":\"\",\"pid\":\"%d\",", m->device, (int)getpid());
	put_str_kv(fp, "pid_name", comm);
	fprintf(fp, "\"memoryTotal\":%lld,\"cpuNums\":%ld,\"sysClockFreq\":%ld,"
		"\"netCardNums\":0,\"drvVersion\":%d,\"rank_id\":%d,"
		"\"CPU\":[{\"Id\":0,\"Name\":\"\",\"Frequency\":\"" HOST_MHZ "\","
		"\"Logical_CPU_Count\":\"%ld\",\"Type\":\"\"}],\"netCard\":[],",
		(long long)sysconf(_SC_PHYS_PAGES) * (sysconf(_SC_PAGESIZE) / 1024),
		sysconf(_SC_NPROCESSORS_ONLN), sysconf(_SC_CLK_TCK), DRV_VERSION,
		rank, sysconf(_SC_NPROCESSORS_ONLN));
	put_device_info(fp, m);
	fputs("}\n", fp);
}

static void put_sample(FILE *fp, const void *ctx)
{
	const struct cann_meta *m = ctx;
	/* The keys the analysis and its C++ loader read (sheet §6). */
	fprintf(fp, "{\"devices\":\"%u\",\"ai_core_profiling_mode\":\"task-based\","
		"\"llc_profiling\":\"\"}\n", m->device);
}

/* start_info / end_info: the date, µs of CLOCK_REALTIME, ns of the raw clock. */
static void put_time(FILE *fp, const struct clock_pair *c, bool end)
{
	time_t secs = (time_t)(c->real_ns / 1000000000ull);
	char date[64], stamp[32], us[24];
	struct tm tm;

	localtime_r(&secs, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(date, sizeof(date), "%s.%06u", stamp,
		 (unsigned int)(c->real_ns / 1000 % 1000000));
	snprintf(us, sizeof(us), "%llu", (unsigned long long)(c->real_ns / 1000));
	fprintf(fp, "{\"collectionDateBegin\":\"%s\",\"collectionDateEnd\":\"%s\","
		"\"collectionTimeBegin\":\"%s\",\"collectionTimeEnd\":\"%s\","
		"\"clockMonotonicRaw\":\"%llu\"}\n", end ? "" : date,
		end ? date : "", end ? "" : us, end ? us : "",
		(unsigned long long)c->raw_ns);
}

static void put_start_info(FILE *fp, const void *ctx)
{
	const struct cann_meta *m = ctx;
	put_time(fp, &m->start, false);
}

static void put_end_info(FILE *fp, const void *ctx)
{
	const struct cann_meta *m = ctx;
	put_time(fp, &m->end, true);
}

/* The host's clock as the device's pair saw it: raw ns, as a counter too. */
static void put_host_start(FILE *fp, const void *ctx)
{
	const struct cann_meta *m = ctx;
	fprintf(fp, "[Device%u]\nclock_monotonic_raw: %llu\ncntvct: %llu\n"
		"cntvct_diff: 0\n", m->device,
		(unsigned long long)m->dev_raw_ns,
		(unsigned long long)m->dev_raw_ns);
}

static void put_dev_start(FILE *fp, const void *ctx)
{
	const struct cann_meta *m = ctx;
	fprintf(fp, "clock_monotonic_raw: %llu\ncntvct: %llu\n",
		(unsigned long long)m->dev_raw_ns,
		(unsigned long long)m->dev_cnt);
}

int cann_meta_write(int dir, const struct cann_meta *m)
{
	static const struct {
		const char *fmt;
		ctrlfile_put_fn put;
	} files[] = {
		{ "info.json.%u", put_info },
		{ "sample.json", put_sample },
		{ "start_info.%u", put_start_info },
		{ "end_info.%u", put_end_info },
		{ "host_start.log.%u", put_host_start },
		{ "dev_start.log.%u", put_dev_start },
	};
	char name[64];
	size_t i;
	int err = 0;

	for (i = 0; i < sizeof(files) / sizeof(files[0]) && !err; i++) {
		snprintf(name, sizeof(name), files[i].fmt, m->device);
		err = ctrlfile_write_fn(dir, name, files[i].put, m);
	}
	return err;
}
