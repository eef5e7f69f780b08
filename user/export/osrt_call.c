// SPDX-License-Identifier: MIT
#include "msprof/osrt.h"
#include "osrt.h"
#include "osrt_call.h"

const char *osrt_call_name(const struct profdata *p, uint8_t what, uint32_t id,
			   char *buf, size_t len)
{
	const struct api_desc *d;

	if (what != OSRT_PTHREAD)
		return osrt_syscall_name(p->osrt, id, buf, len);
	d = profdata_desc(p, id);
	return d ? d->name : "pthread_unknown";
}
