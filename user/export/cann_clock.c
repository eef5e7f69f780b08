// SPDX-License-Identifier: MIT
/*
 * The runtime's clocks (§5) onto ours: host timestamps are CLOCK_MONOTONIC_RAW
 * ns, or a CPU counter at info.json's CPU[0].Frequency MHz paired with ns by
 * host_start.log; device ticks run at info.json.N's hwts_frequency MHz,
 * paired by dev_start.log.N (the count) and host_start.log.N (the ns).  Raw
 * ns then go to our CLOCK_MONOTONIC by the line through the window's start
 * and end clock pairs (msprof_ebpf_window.json); a window without that file
 * keeps raw ns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cann.h"
#include "common/proflayout.h"
#include "common/safe_open.h"
#include "msprof/protocol.h"

#define META_MAX 65536

/* A frequency in MHz as info.json writes it (a string); 0: none usable. */
static double mhz_value(const char *mhz)
{
	char *end;
	double f = strtod(mhz, &end);

	return end != mhz && f > 0.001 && f <= 1e7 ? f : 0;
}

/* ns per tick, << 32, of a frequency in MHz; 0: none usable. */
static uint64_t ns_per_tick_q32(const char *mhz)
{
	double f = mhz_value(mhz);

	return f ? (uint64_t)(1000.0 / f * 4294967296.0) : 0;
}

/* "key: <u64>" on a line of text (host_start.log, dev_start.log); -ENOENT. */
static int log_value(const char *text, const char *key, uint64_t *v)
{
	size_t k = strlen(key);
	const char *at = text;
	char *end;

	for (; at; at = strchr(at, '\n'), at = at ? at + 1 : NULL) {
		if (strncmp(at, key, k) || at[k] != ':')
			continue;
		*v = strtoull(at + k + 1, &end, 10);
		return end == at + k + 1 ? -EPROTO : 0;
	}
	return -ENOENT;
}

/* A host_start.log: its ns at the pair, and the counter there. */
static int read_start_log(struct profdata *p, const char *file, char *text,
			  uint64_t q32, uint64_t *ns, uint64_t *cnt)
{
	uint64_t diff = 0;
	int err = safe_read_small_beneath(p->dirfd, file, text, META_MAX);

	if (err)
		return err;
	if (log_value(text, "clock_monotonic_raw", ns) ||
	    log_value(text, "cntvct", cnt))
		return -EPROTO;
	/* mono is clock_monotonic_raw + cntvct_diff ticks (TimerBean). */
	if (!log_value(text, "cntvct_diff", &diff) && diff && q32)
		*ns += (uint64_t)(((unsigned __int128)diff * q32) >> 32);
	return 0;
}

static void clock_fault(struct profdata *p, const char *file, const char *what)
{
	profdata_problem(p, file, 0, what);
}

/* host/info.json's CPU[0].Frequency and host/host_start.log. */
static void host_clock(struct profdata *p, struct cann *c, char *text)
{
	char mhz[32] = "";
	uint64_t q32 = 0, ns, cnt;

	c->host = (struct cann_lin){ 0 };
	if (!safe_read_small_beneath(p->dirfd, "host/info.json", text, META_MAX) &&
	    !msprof_json_get_str(text, "Frequency", mhz, sizeof(mhz)))
		q32 = ns_per_tick_q32(mhz);
	if (!q32 || q32 == 1ull << 32)
		return;	/* ns already (no frequency, or 1000 MHz) */
	if (read_start_log(p, "host/host_start.log", text, q32, &ns, &cnt)) {
		clock_fault(p, "host/host_start.log",
			    "missing or without clock_monotonic_raw and cntvct: host counter times taken as ns");
		return;
	}
	c->host = (struct cann_lin){ .in0 = cnt, .out0 = ns, .rate_q32 = q32 };
}

/* Raw ns to ours, by the window's start and end pairs. */
static void mono_clock(const struct profmeta *m, struct cann *c)
{
	const struct clock_pair *s = &m->start, *e = &m->end;

	c->mono = (struct cann_lin){ 0 };
	if (m->cann_only || !s->raw_ns)
		return;	/* the runtime's raw ns are the window's clock */
	c->mono.in0 = s->raw_ns;
	c->mono.out0 = s->mono_ns;
	if (e->raw_ns > s->raw_ns && e->mono_ns > s->mono_ns)
		c->mono.rate_q32 = (uint64_t)(((unsigned __int128)(e->mono_ns - s->mono_ns)
					       << 32) / (e->raw_ns - s->raw_ns));
}

/*
 * Huawei's analysis puts a device directory's times on the epoch through
 * that directory's own start_info.N, sampled apart from host/start_info (a
 * runtime takes each as its device starts): by how much that moves the
 * device's times against the window's epoch, 0 without a start_info.N.
 */
static int64_t dir_shift(struct profdata *p, unsigned int n)
{
	char file[64];
	int64_t off;

	snprintf(file, sizeof(file), PROFDIR_DEVICE_PREFIX "%u/" PROFDIR_DEVICE_START "%u", n, n);
	if (profmeta_start_offset(p->dirfd, file, &off))
		return 0;
	return off - profmeta_offset_ns(&p->meta);
}

/* end_info.N's collectionTimeEnd (µs) in ns; 0 when it has none. */
static uint64_t device_end(struct profdata *p, unsigned int n, char *text)
{
	char file[64], us[32] = "", *end;
	unsigned long long v;

	snprintf(file, sizeof(file), PROFDIR_DEVICE_PREFIX "%u/" PROFDIR_DEVICE_END "%u", n, n);
	if (safe_read_small_beneath(p->dirfd, file, text, META_MAX) ||
	    msprof_json_get_str(text, "collectionTimeEnd", us, sizeof(us)))
		return 0;
	v = strtoull(us, &end, 10);
	return end != us && !*end && v < UINT64_MAX / 1000 ? v * 1000 : 0;
}

/* device_<n>'s clock; false when its ticks cannot be placed. */
static bool device_clock(struct profdata *p, struct cann *c, unsigned int n,
			 char *text)
{
	char file[64], mhz[32] = "", aic[32];
	uint64_t q32 = 0, ns = 0, cnt = 0, dev = 0;

	snprintf(file, sizeof(file), PROFDIR_DEVICE_PREFIX "%u/" PROFDIR_DEVICE_INFO "%u", n, n);
	if (!safe_read_small_beneath(p->dirfd, file, text, META_MAX) &&
	    !msprof_json_get_str(text, "hwts_frequency", mhz, sizeof(mhz))) {
		q32 = ns_per_tick_q32(mhz);
		if (!msprof_json_get_str(text, "aic_frequency", aic, sizeof(aic)))
			c->aic_mhz[n] = mhz_value(aic);
	}
	if (!q32) {
		clock_fault(p, file, "no hwts_frequency above 0: the device's tasks are not exported");
		return false;
	}
	snprintf(file, sizeof(file), PROFDIR_DEVICE_PREFIX "%u/" PROFDIR_DEVICE_HOST_START_LOG "%u", n, n);
	if (read_start_log(p, file, text, 0, &ns, &cnt)) {
		/* As Huawei's analysis does: the host's pair instead. */
		clock_fault(p, file, "missing or unreadable: the host's host_start.log taken");
		if (read_start_log(p, "host/host_start.log", text, 0, &ns, &cnt))
			ns = 0;
	}
	snprintf(file, sizeof(file), PROFDIR_DEVICE_PREFIX "%u/" PROFDIR_DEVICE_DEV_START_LOG "%u", n, n);
	if (safe_read_small_beneath(p->dirfd, file, text, META_MAX) ||
	    log_value(text, "cntvct", &dev)) {
		/* Huawei's analysis takes 0 then: the times move by cntvct. */
		clock_fault(p, file, "missing or without cntvct: device count 0 taken");
		dev = 0;
	}
	c->dev[n] = (struct cann_lin){ .in0 = dev, .out0 = ns, .rate_q32 = q32 };
	c->dev[n].out0 += (uint64_t)dir_shift(p, n);
	c->dev_end_epoch_ns[n] = device_end(p, n, text);
	return true;
}

int cann_clocks_load(struct profdata *p, struct cann *c)
{
	char *text = malloc(META_MAX);
	unsigned int n;
	char dir[32];
	struct stat st;
	int fd;

	if (!text)
		return -ENOMEM;
	host_clock(p, c, text);
	mono_clock(&p->meta, c);
	for (n = 0; n < CANN_MAX_DEVICES; n++) {
		snprintf(dir, sizeof(dir), PROFDIR_DEVICE_PREFIX "%u/" PROFDIR_DEVICE_INFO "%u", n, n);
		fd = safe_open_beneath(p->dirfd, dir, &st);
		if (fd < 0)
			continue;
		close(fd);
		c->dev_known[n] = device_clock(p, c, n, text);
	}
	free(text);
	return 0;
}
