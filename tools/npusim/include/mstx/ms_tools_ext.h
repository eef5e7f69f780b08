/* SPDX-License-Identifier: MIT */
/*
 * npusim's mstx: the user-mark API of CANN's libms_tools_ext.so, by its
 * documented names and signatures, so that msprof's probes on CANN's
 * library run unchanged on the simulator.  A mark is an instant, a range a
 * start and an end joined by the id the start returns (0: it failed); the
 * domain calls do the same inside a named domain.  The stream is where a
 * real runtime would also mark the device; npusim marks the host only.
 */
#ifndef NPUSIM_MS_TOOLS_EXT_H
#define NPUSIM_MS_TOOLS_EXT_H

#include <stdint.h>

#include <acl/acl.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t mstxRangeId;
typedef struct mstxDomainRegistration_st *mstxDomainHandle_t;

void mstxMarkA(const char *message, aclrtStream stream);
mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream);
void mstxRangeEnd(mstxRangeId id);

/* NULL for a NULL or empty name. */
mstxDomainHandle_t mstxDomainCreateA(const char *name);
void mstxDomainDestroy(mstxDomainHandle_t domain);
void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message,
		     aclrtStream stream);
mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain,
				  const char *message, aclrtStream stream);
void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id);

#ifdef __cplusplus
}
#endif

#endif
