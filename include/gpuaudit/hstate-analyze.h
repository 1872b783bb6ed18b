/*
 * hstate-analyze.h - what analyze decides of the sticky health state (lib/analyze/hstate.c):
 * the update by a run's findings, the clearing, and which findings stick. The state's types
 * and its file model are hstate.h's.
 */
#ifndef GPUAUDIT_HSTATE_ANALYZE_H
#define GPUAUDIT_HSTATE_ANALYZE_H

#include "gpuaudit/hstate.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One collection: fold FINDINGS (this run's, sorted or not) into ST as of
 * NOW_S on boot BOOT_ID (may be NULL), with HP's thresholds and damping (NULL:
 * defaults). Raised conditions mark their finding (evidence condition=raised,
 * raised_at; the threshold's action), raised ones that are absent this run
 * are added back as findings (evidence condition=sticky), and findings below
 * a threshold carry evidence "threshold". 0 or -ENOMEM.
 */
int ga_hstate_update(struct ga_health_state *st, struct ga_findings *findings,
                     const struct ga_health_policy *hp, int64_t now_s, const char *boot_id);

/*
 * The same for a collection whose verdict is unknown (the kernel log could not
 * be read): findings are folded and raised conditions absent from it are added
 * back, but it is not a clear collection: no condition's clear count grows, none
 * is lowered or forgotten. 0 or -ENOMEM.
 */
int ga_hstate_update_unknown(struct ga_health_state *st, struct ga_findings *findings,
                             const struct ga_health_policy *hp, int64_t now_s, const char *boot_id);

/* Lower and forget (the high-water marks stay) the conditions with CODE, or all for "all";
 * returns how many were raised. */
size_t ga_hstate_clear(struct ga_health_state *st, const char *code);

/* Whether finding fd is a raised (sticky) condition: its evidence says so. */
bool ga_finding_is_sticky(const struct ga_finding *fd);

#ifdef __cplusplus
}
#endif
#endif
