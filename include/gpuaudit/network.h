/*
 * network.h - the network and fabric checks that need more than one snapshot, and the
 * action/cause table of their finding codes (lib/analyze/ib.c, docs/network.md).
 */
#ifndef GPUAUDIT_NETWORK_H
#define GPUAUDIT_NETWORK_H

#include "gpuaudit/findings.h"
#include "gpuaudit/node.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Link flaps and rising error counters: each InfiniBand/RoCE port of CUR against the same
 * port (device, port number, node GUID) in PREV, the previous collection. link_downed
 * rising is GA-IB-LINK-FLAP; symbol, recovery and receive errors rising GA-IB-ERRORS-RISING.
 * A counter lower than before was cleared and says nothing. NULL PREV: nothing to compare.
 * Returns 0 or -ENOMEM (out->err).
 */
int ga_analyze_ib_delta(const struct ga_node *prev, const struct ga_node *cur, struct ga_findings *out);

#ifdef __cplusplus
}
#endif
#endif
