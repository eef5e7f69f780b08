// SPDX-License-Identifier: MIT
/*
 * libms_tools_ext.so as npusim has it: CANN's user-mark entry points,
 * which do what the real library does with no profiler injected (hand out
 * range ids, keep domains) and nothing more.  msprof sees them by uprobes
 * on this library, as it does on CANN's.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <mstx/ms_tools_ext.h>

struct mstxDomainRegistration_st {
	char *name;
};

/* Process-wide and never 0, which says a start failed. */
static atomic_uint_fast64_t next_range = 1;

/*
 * Not static and not inlined into one another: each is a function of its
 * own that a probe enters once per call.
 */
void mstxMarkA(const char *message, aclrtStream stream)
{
	(void)message;
	(void)stream;
}

mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream)
{
	(void)stream;
	if (!message)
		return 0;
	return atomic_fetch_add(&next_range, 1);
}

void mstxRangeEnd(mstxRangeId id)
{
	(void)id;
}

mstxDomainHandle_t mstxDomainCreateA(const char *name)
{
	struct mstxDomainRegistration_st *d;

	if (!name || !*name)
		return NULL;
	d = malloc(sizeof(*d));
	if (!d)
		return NULL;
	d->name = strdup(name);
	if (!d->name) {
		free(d);
		return NULL;
	}
	return d;
}

void mstxDomainDestroy(mstxDomainHandle_t domain)
{
	if (!domain)
		return;
	free(domain->name);
	free(domain);
}

void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message,
		     aclrtStream stream)
{
	(void)domain;
	(void)message;
	(void)stream;
}

mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain,
				  const char *message, aclrtStream stream)
{
	(void)stream;
	if (!domain || !message)
		return 0;
	return atomic_fetch_add(&next_range, 1);
}

void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id)
{
	(void)domain;
	(void)id;
}
