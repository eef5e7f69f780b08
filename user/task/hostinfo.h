/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_HOSTINFO_H
#define MSPROF_HOSTINFO_H

#include <net/if.h>

#define HOSTINFO_NETCARDS 32

/*
 * What msprof's info.json says of the host, read where the runtime reads
 * it.  A fact that cannot be read is left empty or 0: info.json is still
 * written.
 */
struct hostinfo {
	char os[128];		/* uname: sysname-release */
	char hostname[256];
	char hwtype[64];	/* uname: machine */
	char uptime[64];	/* the first line of /proc/uptime */
	char cpu_vendor[64];	/* /proc/cpuinfo */
	char cpu_model[128];
	/*
	 * /etc/machine-id (32 hex digits), else the boot id, else "0": tells
	 * hosts apart when ranks without a rank id are merged.
	 */
	char host_uid[40];
	unsigned long long mem_total_kb;
	long cpus;		/* configured logical CPUs */
	long clk_tck;
	unsigned int netcards;	/* those with a speed, at most HOSTINFO_NETCARDS */
	struct {
		char name[IF_NAMESIZE];
		int speed;	/* Mb/s */
	} netcard[HOSTINFO_NETCARDS];
};

void hostinfo_read(struct hostinfo *h);

#endif
