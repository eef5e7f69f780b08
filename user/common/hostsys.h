/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_HOSTSYS_H
#define MSPROF_HOSTSYS_H

/*
 * What --host-sys and --host-sys-usage ask a window to collect, shared by
 * the command line that sets it and the layers that collect it.  Each is a
 * mask of 1 << the element's enum value.
 */
enum hostsys_item {
	HOSTSYS_CPU,		/* host_cpu.data: the target's threads' CPU */
	HOSTSYS_MEM,		/* host_mem.data: its statm */
	HOSTSYS_DISK,		/* host_disk.data: its /proc/<pid>/io rates */
	HOSTSYS_NETWORK,	/* host_network.data: /proc/net/dev */
	HOSTSYS_OSRT,		/* host_syscall.data, host_pthreadcall.data */
	HOSTSYS_SCHED,		/* beyond msprof: each thread's states */
	NR_HOSTSYS,
};

enum hostsys_usage_item {
	HOSTSYS_USAGE_CPU,	/* <pid>-CpuUsage.data, host_sys_cpu.data */
	HOSTSYS_USAGE_MEM,	/* <pid>-Memory.data, host_sys_mem.data */
	NR_HOSTSYS_USAGE,
};

/* The elements' names, in enum order: the options' and sample.json's. */
extern const char *const hostsys_item_names[NR_HOSTSYS];
extern const char *const hostsys_usage_names[NR_HOSTSYS_USAGE];

/* msprof's fixed period for cpu, mem, network and disk: 20 ms. */
#define HOSTSYS_PERIOD_MS	20
/* --host-sys-usage-freq's range and default, in Hz. */
#define HOSTSYS_USAGE_FREQ_MAX	50
#define HOSTSYS_USAGE_FREQ_DEF	50
/* --osrt-threshold's default and bound, in microseconds. */
#define HOSTSYS_OSRT_THRESHOLD_DEF	1
#define HOSTSYS_OSRT_THRESHOLD_MAX	10000000

struct hostsys_conf {
	unsigned int items;		/* 1 << enum hostsys_item */
	unsigned int usage;		/* 1 << enum hostsys_usage_item */
	unsigned int usage_freq_hz;	/* --host-sys-usage-freq */
	unsigned int osrt_threshold_us;	/* --osrt-threshold */
};

static inline int hostsys_on(const struct hostsys_conf *c,
			     enum hostsys_item i)
{
	return !!(c->items & 1u << i);
}

static inline int hostsys_usage_on(const struct hostsys_conf *c,
				   enum hostsys_usage_item i)
{
	return !!(c->usage & 1u << i);
}

/*
 * The sampling period of --host-sys-usage, in ms: msprof's
 * hostProfilingSamplingInterval, 1000 / freq with integer division.
 */
static inline unsigned int hostsys_usage_period_ms(const struct hostsys_conf *c)
{
	return 1000 / c->usage_freq_hz;
}

#endif
