// SPDX-License-Identifier: MIT
/*
 * What is probed: the ACL runtime API (the names npusim and CANN's
 * libascendcl share) and the simulator's driver node.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "probes.h"
#include "procfs.h"

const struct probe_api probe_apis[] = {
	{ "aclInit", MSPROF_LAYER_ACL },
	{ "aclFinalize", MSPROF_LAYER_ACL },
	{ "aclrtSetDevice", MSPROF_LAYER_ACL },
	{ "aclrtResetDevice", MSPROF_LAYER_ACL },
	{ "aclrtGetDeviceCount", MSPROF_LAYER_ACL },
	{ "aclrtCreateStream", MSPROF_LAYER_ACL },
	{ "aclrtDestroyStream", MSPROF_LAYER_ACL },
	{ "aclrtMalloc", MSPROF_LAYER_ACL },
	{ "aclrtMallocHost", MSPROF_LAYER_ACL },
	{ "aclrtFree", MSPROF_LAYER_ACL },
	{ "aclrtFreeHost", MSPROF_LAYER_ACL },
	{ "aclrtMemcpy", MSPROF_LAYER_ACL },
	{ "aclrtMemcpyAsync", MSPROF_LAYER_ACL },
	{ "aclrtMemset", MSPROF_LAYER_ACL },
	{ "aclrtSynchronizeStream", MSPROF_LAYER_ACL },
	{ "aclrtSynchronizeDevice", MSPROF_LAYER_ACL },
	{ "aclrtLaunchKernel", MSPROF_LAYER_ACL },
	{ "aclrtRecordEvent", MSPROF_LAYER_ACL },
	{ "aclrtSynchronizeEvent", MSPROF_LAYER_ACL },
	{ "aclmdlExecute", MSPROF_LAYER_ACL },
	{ "aclmdlExecuteAsync", MSPROF_LAYER_ACL },
	{ "aclopExecuteV2", MSPROF_LAYER_ACL },
};

const size_t probe_napis = sizeof(probe_apis) / sizeof(probe_apis[0]);

_Static_assert(sizeof(probe_apis) / sizeof(probe_apis[0]) <= MSPROF_MAX_APIS,
	       "api ids must fit the BPF side's limit");

void probe_names(const char **names)
{
	size_t i;

	for (i = 0; i < probe_napis; i++)
		names[i] = probe_apis[i].name;
}

int probe_device_node(int host_pid, char *path, size_t len)
{
	int err = procfs_getenv(host_pid, "NPUSIM_DEVICE", path, len);

	if (err == -ENOENT || (!err && !*path)) {
		if (snprintf(path, len, "/dev/null") >= (int)len)
			return -ENAMETOOLONG;
		return 0;
	}
	return err;
}
