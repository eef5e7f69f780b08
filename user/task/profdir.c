// SPDX-License-Identifier: MIT
/*
 * PROF_ directories: their names, msprof's metadata in host/ and
 * device_<N>/ (docs/output.md), and msprof-ebpf's own account of
 * the window at the root.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/ctrlfile.h"
#include "common/fsutil.h"
#include "hostinfo.h"
#include "common/json.h"
#include "msprof/protocol.h"
#include "profdir.h"
#include "common/safe_open.h"
#include "version.h"

/*
 * The readers take a platform_version from their list only; 5 (Ascend910B)
 * also lets the C++ exporter run.  Every device here declares it: npusim
 * simulates one, and a CUDA device says what it is in its other fields.
 */
#define PLATFORM_VERSION	"5"
/* The first driver whose data the analysis exports whole (IsAllExport). */
#define DRV_VERSION		467473
/*
 * Host and device "counts" are ns (Frequency, hwts_frequency 1000 MHz):
 * the records' CLOCK_MONOTONIC ns, which host_start.log's cntvct pairs
 * with clock_monotonic_raw.
 */
#define COUNT_MHZ		"1000"
/* Metadata files are small: a bigger one is not ours. */
#define META_MAX		65536

/*
 * sample.json: the parameters the task's runtime was sent, as msprof keeps
 * them; host's (hostsys) also what msprof's own host collectors were set
 * to, for the task that sees itself as host_pid.
 */
static int write_sample(int dir, const char *name, const char *devices,
			const struct params_switches *sw,
			const struct hostsys_conf *hostsys, int host_pid)
{
	struct params_switches with = { 0 };
	char line[MSPROF_PARAMS_LEN + 1];
	size_t n;
	int err;

	if (sw)
		with = *sw;
	if (hostsys && (hostsys->items || hostsys->usage)) {
		with.hostsys = hostsys;
		with.host_sys_pid = host_pid;
	}
	/* Where the task's runtime put its data is the stage, gone by now. */
	err = params_build(&with, "", devices, line, sizeof(line) - 1);
	if (err)
		return err;
	n = strlen(line);
	line[n++] = '\n';
	return ctrlfile_write(dir, name, line, n);
}

/* What info.json says of the task, the same in host/ and device_<N>/. */
struct info_task {
	char pid[16];		/* the task's own getpid() */
	char pid_name[64];
	int rank_id;
};

/* The DeviceInfo element of one device; NULL backend: the host's ([]). */
struct info_device {
	unsigned int id;
	const char *backend;
};

static void put_kv(FILE *fp, const char *key, const char *val)
{
	fprintf(fp, "\"%s\":", key);
	json_put_str(fp, val);
	fputc(',', fp);
}

static void put_device_info(FILE *fp, const struct info_device *d)
{
	bool cuda = !strcmp(d->backend, "cupti");

	/*
	 * npusim has one simulated core per device; a CUDA device is counted
	 * as one too: the readers want numbers, we have no AI core to count.
	 */
	fprintf(fp, "{\"id\":%u,\"env_type\":3,\"ctrl_cpu_core_num\":0,"
		"\"ctrl_cpu_endian_little\":1,\"ts_cpu_core_num\":0,"
		"\"ai_cpu_core_num\":0,\"ai_core_num\":1,\"ai_cpu_core_id\":0,"
		"\"ai_core_id\":0,\"aicpu_occupy_bitmap\":0,\"aiv_num\":0,",
		d->id);
	put_kv(fp, "ctrl_cpu_id", cuda ? "cuda" : "npusim");
	put_kv(fp, "ctrl_cpu", cuda ? "NVIDIA GPU (CUDA, traced through CUPTI)" :
		   "simulated NPU (npusim)");
	put_kv(fp, "ai_cpu", "");
	put_kv(fp, "hwts_frequency", COUNT_MHZ);
	put_kv(fp, "aic_frequency", COUNT_MHZ);
	fprintf(fp, "\"aiv_frequency\":\"%s\"}", COUNT_MHZ);
}

/* info.json(.N): one line, the keys and types of spec §2. */
static void put_info(FILE *fp, const struct hostinfo *h,
		     const struct info_task *t, const struct info_device *d)
{
	char devices[16] = "";
	unsigned int i;

	if (d)
		snprintf(devices, sizeof(devices), "%u", d->id);
	fputc('{', fp);
	put_kv(fp, "version", "1.0");
	put_kv(fp, "jobInfo", "NA");
	put_kv(fp, "OS", h->os);
	put_kv(fp, "hostname", h->hostname);
	put_kv(fp, "hwtype", d && !strcmp(d->backend, "cupti") ? "cuda" : h->hwtype);
	put_kv(fp, "devices", devices);
	put_kv(fp, "platform", "");
	put_kv(fp, "platform_version", PLATFORM_VERSION);
	put_kv(fp, "upTime", h->uptime);
	put_kv(fp, "cannVersion", "");
	put_kv(fp, "hostUid", h->host_uid);
	/*
	 * The task's name last of the strings: a key is looked up as the
	 * first string of its name (msprof_json_get_str), and one the task
	 * chose must not come before the keys read back.
	 */
	put_kv(fp, "pid", t->pid);
	put_kv(fp, "pid_name", t->pid_name);
	fprintf(fp, "\"memoryTotal\":%llu,\"cpuNums\":%ld,\"sysClockFreq\":%ld,"
		"\"cpuCores\":1,\"netCardNums\":%u,\"drvVersion\":%d,"
		"\"rank_id\":%d,\"CPU\":[{\"Id\":0,",
		h->mem_total_kb, h->cpus, h->clk_tck, h->netcards, DRV_VERSION,
		t->rank_id);
	put_kv(fp, "Name", h->cpu_vendor);
	put_kv(fp, "Frequency", COUNT_MHZ);
	fprintf(fp, "\"Logical_CPU_Count\":\"%ld\",", h->cpus);
	fputs("\"Type\":", fp);
	json_put_str(fp, h->cpu_model);
	fputs("}],\"netCard\":[", fp);
	for (i = 0; i < h->netcards; i++) {
		fputs(i ? ",{\"netCardName\":" : "{\"netCardName\":", fp);
		json_put_str(fp, h->netcard[i].name);
		fprintf(fp, ",\"speed\":%d}", h->netcard[i].speed);
	}
	fputs("],\"DeviceInfo\":[", fp);
	if (d)
		put_device_info(fp, d);
	fputs("]}\n", fp);
}

struct info_ctx {
	const struct hostinfo *h;
	const struct info_task *t;
	const struct info_device *d;
};

static void put_info_ctx(FILE *fp, const void *ctx)
{
	const struct info_ctx *c = ctx;

	put_info(fp, c->h, c->t, c->d);
}

/* start_info / end_info: the pair of the other end is "". */
struct time_ctx {
	const struct clock_pair *c;
	bool end;
};

static void put_time_info(FILE *fp, const void *ctx)
{
	const struct time_ctx *tc = ctx;
	time_t secs = (time_t)(tc->c->real_ns / 1000000000ull);
	char date[64], stamp[32];
	struct tm tm;

	localtime_r(&secs, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(date, sizeof(date), "%s.%06u", stamp,
		 (unsigned int)(tc->c->real_ns / 1000 % 1000000));
	fprintf(fp, "{\"collectionDateBegin\":\"%s\",\"collectionDateEnd\":\"%s\","
		"\"collectionTimeBegin\":\"", tc->end ? "" : date,
		tc->end ? date : "");
	if (!tc->end)
		fprintf(fp, "%llu", (unsigned long long)(tc->c->real_ns / 1000));
	fputs("\",\"collectionTimeEnd\":\"", fp);
	if (tc->end)
		fprintf(fp, "%llu", (unsigned long long)(tc->c->real_ns / 1000));
	fprintf(fp, "\",\"clockMonotonicRaw\":\"%llu\"}\n",
		(unsigned long long)tc->c->raw_ns);
}

/* host_start.log(.N), dev_start.log.N: section NULL: none. */
struct start_log_ctx {
	const char *section;
	unsigned long long raw_ns, mono_ns;
};

static void put_start_log(FILE *fp, const void *ctx)
{
	const struct start_log_ctx *l = ctx;

	if (l->section)
		fprintf(fp, "[%s]\n", l->section);
	fprintf(fp, "clock_monotonic_raw: %llu\ncntvct: %llu\n", l->raw_ns,
		l->mono_ns);
	if (l->section)
		fputs("cntvct_diff: 0\n", fp);
}

/*
 * msprof-ebpf's account of the window: "collecting" while it runs; at its
 * end "complete" or "incomplete" with the reason, and the end's fields.
 */
static void put_pair(FILE *fp, const char *key, const struct clock_pair *c)
{
	fprintf(fp, ",\n  \"%s\": {\"mono_ns\": %llu, \"raw_ns\": %llu, \"real_ns\": %llu}",
		key, (unsigned long long)c->mono_ns,
		(unsigned long long)c->raw_ns, (unsigned long long)c->real_ns);
}

static void put_facts(FILE *fp, const struct profdir_summary *s,
		      const struct hostinfo *h, bool ended)
{
	const char *state = !ended ? "collecting" :
			    s->incomplete_reason ? "incomplete" : "complete";

	fprintf(fp, "{\n  \"tool\": \"msprof-ebpf\",\n  \"tool_version\": \"%s\",\n"
		"  \"version\": 2,\n  \"state\": \"%s\",\n", MSPROF_VERSION, state);
	if (ended && s->incomplete_reason) {
		fputs("  \"incomplete_reason\": ", fp);
		json_put_str(fp, s->incomplete_reason);
		fputs(",\n", fp);
	}
	fprintf(fp, "  \"pid\": %d,\n  \"ns_pid\": %d,\n  \"rank_id\": %d,\n"
		"  \"hostname\": ", s->host_pid, s->ns_pid, s->rank_id);
	json_put_str(fp, h->hostname);
	fputs(",\n  \"hostUid\": ", fp);
	json_put_str(fp, h->host_uid);
	fprintf(fp, ",\n  \"window\": %u", s->window);
	put_pair(fp, "start", &s->start);
	if (s->requested_real_ns)
		fprintf(fp, ",\n  \"start_at_requested_real_ns\": %llu",
			(unsigned long long)s->requested_real_ns);
	if (s->opened_real_ns)
		fprintf(fp, ",\n  \"collecting_since_real_ns\": %llu",
			(unsigned long long)s->opened_real_ns);
	if (ended) {
		put_pair(fp, "end", &s->end);
		fprintf(fp, ",\n"
			"  \"host\": {\"api_events\": %llu, \"ioctl_events\": %llu, "
			"\"lost_events\": %llu, \"unfinished_at_stop\": %llu},\n"
			"  \"target_exited\": %s",
			(unsigned long long)s->api_events,
			(unsigned long long)s->ioctl_events,
			(unsigned long long)s->lost_events,
			(unsigned long long)s->unfinished,
			s->target_exited ? "true" : "false");
	}
	if (s->device_status) {
		fputs(",\n  \"device_status\": ", fp);
		json_put_str(fp, s->device_status);
	}
	/* The task's name last: no key read back comes after it. */
	fputs(",\n  \"comm\": ", fp);
	json_put_str(fp, s->comm);
	fputs("\n}\n", fp);
}

static int write_facts(int dir, const struct profdir_summary *s, bool ended)
{
	struct hostinfo h;
	char *text = NULL;
	size_t len;
	FILE *fp;
	int err;

	hostinfo_read(&h);
	fp = open_memstream(&text, &len);
	if (!fp)
		return -errno;
	put_facts(fp, s, &h, ended);
	err = ctrlfile_close_text(fp);
	if (!err)
		err = ended ? fsutil_write_replace_at(dir, PROFDIR_FACTS, text, len) :
			      fsutil_write_new_at(dir, PROFDIR_FACTS, text, len);
	free(text);
	return err;
}

static void task_of(struct info_task *t, const struct profdir_summary *s)
{
	snprintf(t->pid, sizeof(t->pid), "%d", s->ns_pid);
	snprintf(t->pid_name, sizeof(t->pid_name), "%s", s->comm);
	t->rank_id = s->rank_id;
}

/* host/'s metadata, each file with its .done. */
static int write_host_meta(int dir, const struct profdir_summary *s)
{
	struct start_log_ctx log = {
		.section = "Host", .raw_ns = s->start.raw_ns,
		.mono_ns = s->start.mono_ns,
	};
	struct time_ctx start = { .c = &s->start };
	struct info_task t;
	struct hostinfo h;
	struct info_ctx info = { .h = &h, .t = &t };

	hostinfo_read(&h);
	task_of(&t, s);
	return ctrlfile_write_fn(dir, PROFDIR_HOST_INFO, put_info_ctx, &info) ?:
	       /* msprof's host id, which the analysis tells host/ by. */
	       write_sample(dir, PROFDIR_HOST_SAMPLE, "64", s->switches,
			    s->hostsys, s->ns_pid) ?:
	       ctrlfile_write_fn(dir, PROFDIR_HOST_START, put_time_info, &start) ?:
	       ctrlfile_write_fn(dir, PROFDIR_HOST_START_LOG, put_start_log, &log);
}

/* What profdir_create() makes, innermost first: what discard removes. */
static const char *const made_files[] = {
	PROFDIR_HOST_FILE, PROFDIR_FACTS,
	PROFDIR_HOST_INFO, PROFDIR_HOST_INFO PROFDIR_DONE,
	PROFDIR_HOST_SAMPLE, PROFDIR_HOST_SAMPLE PROFDIR_DONE,
	PROFDIR_HOST_START, PROFDIR_HOST_START PROFDIR_DONE,
	PROFDIR_HOST_START_LOG, PROFDIR_HOST_START_LOG PROFDIR_DONE,
};
static const char *const made_dirs[] = { PROFDIR_HOST_DATA, PROFDIR_HOST };

int profdir_create(int out, const struct profdir_summary *s, char *name,
		   size_t len, int *dir)
{
	unsigned char rnd[8];
	size_t i;
	int err;

	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -errno;
	err = proflayout_name_make(name, len, s->window, s->start.real_ns, s->ns_pid, rnd);
	if (err)
		return err;
	if (mkdirat(out, name, 0750))
		return -errno;
	*dir = openat(out, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*dir < 0) {
		err = -errno;
		unlinkat(out, name, AT_REMOVEDIR);
		return err;
	}
	/* Made by us just now, in a directory only root writes: no links. */
	for (i = sizeof(made_dirs) / sizeof(made_dirs[0]); !err && i--;)
		if (mkdirat(*dir, made_dirs[i], 0750))
			err = -errno;
	/* The account first: a window with host/ files has one. */
	if (!err)
		err = write_facts(*dir, s, false);
	if (!err)
		err = write_host_meta(*dir, s);
	if (err) {
		profdir_discard(out, name, *dir);
		*dir = -1;
	}
	return err;
}

int profdir_open_host_file(int dir, int *fd)
{
	return fsutil_create_at(dir, PROFDIR_HOST_FILE, fd);
}

/* The task and start as host/ has them: the device's are the same. */
static int read_host_meta(int dir, struct info_task *t,
			  struct start_log_ctx *log, char *start_info)
{
	char *text = malloc(META_MAX);
	const char *at;
	int err;

	if (!text)
		return -ENOMEM;
	err = safe_read_small_beneath(dir, PROFDIR_HOST_INFO, text, META_MAX);
	if (!err && (msprof_json_get_str(text, "pid", t->pid, sizeof(t->pid)) ||
		     msprof_json_get_str(text, "pid_name", t->pid_name, sizeof(t->pid_name))))
		err = -EPROTO;
	t->rank_id = (int)json_find_number(text, "rank_id");
	if (!err)
		err = safe_read_small_beneath(dir, PROFDIR_HOST_START_LOG, text, META_MAX);
	if (!err) {
		at = strstr(text, "clock_monotonic_raw:");
		log->raw_ns = at ? strtoull(at + 20, NULL, 10) : 0;
		at = strstr(text, "cntvct:");
		log->mono_ns = at ? strtoull(at + 7, NULL, 10) : 0;
		err = safe_read_small_beneath(dir, PROFDIR_HOST_START, start_info,
					 META_MAX);
	}
	free(text);
	return err;
}

struct raw_ctx {
	const char *text;
};

static void put_raw(FILE *fp, const void *ctx)
{
	fputs(((const struct raw_ctx *)ctx)->text, fp);
}

int profdir_write_device_meta(int dir, unsigned int device, const char *backend,
			      const struct params_switches *sw)
{
	char name[64], section[32], devices[16], *start_info;
	struct start_log_ctx log = { .section = section };
	struct clock_pair end;
	struct time_ctx end_info = { .c = &end, .end = true };
	struct info_task t;
	struct hostinfo h;
	struct info_device d = { .id = device, .backend = backend };
	struct info_ctx info = { .h = &h, .t = &t, .d = &d };
	struct raw_ctx raw;
	struct stat st;
	int sub, err;

	snprintf(name, sizeof(name), PROFDIR_DEVICE_PREFIX "%u", device);
	/* Ours: made by root in root's PROF_ directory. */
	sub = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0)
		return -errno;
	snprintf(name, sizeof(name), PROFDIR_DEVICE_INFO "%u", device);
	/* A real runtime's own metadata stays as it wrote it. */
	if (!fstatat(sub, name, &st, AT_SYMLINK_NOFOLLOW)) {
		close(sub);
		return 0;
	}
	start_info = malloc(META_MAX);
	err = start_info ? read_host_meta(dir, &t, &log, start_info) :
			   -ENOMEM;
	clock_pair_now(&end);
	hostinfo_read(&h);
	snprintf(devices, sizeof(devices), "%u", device);
	snprintf(section, sizeof(section), "Device%u", device);
	raw.text = start_info;
	if (!err)
		err = ctrlfile_write_fn(sub, name, put_info_ctx, &info);
	snprintf(name, sizeof(name), PROFDIR_DEVICE_START "%u", device);
	if (!err)
		err = ctrlfile_write_fn(sub, name, put_raw, &raw);
	snprintf(name, sizeof(name), PROFDIR_DEVICE_END "%u", device);
	if (!err)
		err = ctrlfile_write_fn(sub, name, put_time_info, &end_info);
	if (!err)
		err = write_sample(sub, PROFDIR_SAMPLE, devices, sw, NULL, 0);
	snprintf(name, sizeof(name), PROFDIR_DEVICE_HOST_START_LOG "%u", device);
	if (!err)
		err = ctrlfile_write_fn(sub, name, put_start_log, &log);
	/* The device's clock is the host's: the same pair, no section. */
	log.section = NULL;
	snprintf(name, sizeof(name), PROFDIR_DEVICE_DEV_START_LOG "%u", device);
	if (!err)
		err = ctrlfile_write_fn(sub, name, put_start_log, &log);
	free(start_info);
	close(sub);
	return err;
}

const char *profdir_device_backend(int dir)
{
	struct stat st;

	/* The agent names its backend in the file it copied in beside. */
	return fstatat(dir, PROFDIR_AGENT_STATS_PREFIX "cupti" PROFDIR_AGENT_STATS_SUFFIX, &st, AT_SYMLINK_NOFOLLOW) ?
	       "npusim" : "cupti";
}

int profdir_finish(int dir, const struct profdir_summary *s)
{
	struct profdir_summary inc = *s;
	struct time_ctx end = { .c = &s->end, .end = true };
	char why[96];
	int err, fd;

	/* The data first on disk, then the word that it is complete. */
	fd = openat(dir, PROFDIR_HOST_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	err = fd < 0 || fsync(fd) ? -errno : 0;
	if (fd >= 0)
		close(fd);
	if (err && !inc.incomplete_reason) {
		snprintf(why, sizeof(why), "host data not synced: %s",
			 strerror(-err));
		inc.incomplete_reason = why;
	}
	err = ctrlfile_write_fn(dir, PROFDIR_HOST_END, put_time_info, &end);
	if (err && !inc.incomplete_reason)
		inc.incomplete_reason = "cannot write host/end_info";
	return write_facts(dir, &inc, true) ?: err;
}

void profdir_discard(int out, const char *name, int dir)
{
	size_t i;

	for (i = 0; i < sizeof(made_files) / sizeof(made_files[0]); i++)
		unlinkat(dir, made_files[i], 0);
	for (i = 0; i < sizeof(made_dirs) / sizeof(made_dirs[0]); i++)
		unlinkat(dir, made_dirs[i], AT_REMOVEDIR);
	close(dir);
	unlinkat(out, name, AT_REMOVEDIR);
}
