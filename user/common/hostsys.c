// SPDX-License-Identifier: MIT
/* The names of --host-sys's and --host-sys-usage's elements. */
#include "hostsys.h"

const char *const hostsys_item_names[NR_HOSTSYS] = {
	[HOSTSYS_CPU] = "cpu",
	[HOSTSYS_MEM] = "mem",
	[HOSTSYS_DISK] = "disk",
	[HOSTSYS_NETWORK] = "network",
	[HOSTSYS_OSRT] = "osrt",
	[HOSTSYS_SCHED] = "sched",
};

const char *const hostsys_usage_names[NR_HOSTSYS_USAGE] = {
	[HOSTSYS_USAGE_CPU] = "cpu",
	[HOSTSYS_USAGE_MEM] = "mem",
};
