/*
 * fabric-analyze.h - what analyze decides of NVLink and the Xid sources
 * (lib/analyze/nvlink.c): the error counters and their deltas, the NVLink watch of serve, the
 * finding for Xids no source could see. The types are fabric.h's.
 */
#ifndef GPUAUDIT_FABRIC_ANALYZE_H
#define GPUAUDIT_FABRIC_ANALYZE_H

#include "gpuaudit/fabric.h"

#ifdef __cplusplus
extern "C" {
#endif

int ga_nvlink_counters_take(const struct ga_node *n, double at_s, struct ga_nvlink_counters *out);

void ga_nvlink_counters_release(struct ga_nvlink_counters *c);

/*
 * GA-NVLINK-ERRORS-RISING into OUT (NULL: only *ret_rose) for every link of CUR
 * whose replay, recovery or CRC counter is above BASE (a counter that went back,
 * after a reset or driver reload, is not a rise). 0 or -ENOMEM.
 */
int ga_nvlink_error_deltas(const struct ga_nvlink_counters *base, const struct ga_node *cur, double now_s,
                           struct ga_findings *out, bool *ret_rose);

int ga_nvlink_watch(struct ga_nvlink_watch *w, const struct ga_node *cur, double now_s, double hold_s,
                    struct ga_findings *out);

void ga_nvlink_watch_release(struct ga_nvlink_watch *w);

/* A short text for the Xid sources: "GA-XID-NO-SOURCE" when neither is live. 0 / -ENOMEM. */
int ga_xid_no_source_finding(const char *kmsg_why, const char *nvml_why, struct ga_findings *out);

#ifdef __cplusplus
}
#endif
#endif
