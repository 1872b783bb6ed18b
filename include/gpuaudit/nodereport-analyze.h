/*
 * nodereport-analyze.h - what analyze puts in the check and health reports
 * (lib/analyze/check.c, health.c): the reports filled from a check or a health run, the
 * coverage of the health sources and the health verdict. The reports' types and models are
 * nodereport.h's.
 */
#ifndef GPUAUDIT_NODEREPORT_ANALYZE_H
#define GPUAUDIT_NODEREPORT_ANALYZE_H

#include "gpuaudit/nodereport.h"

#ifdef __cplusplus
extern "C" {
#endif

int ga_check_report_take(struct ga_check_report *r, struct ga_check *c, const char *policy_file,
                         const char *host);

/* Record one source in log's coverage (at most GA_HEALTH_COV_MAX; later ones are dropped). */
void ga_health_cover(struct ga_health_log *log, const char *source, enum ga_hsrc_state state, bool decisive,
                     const char *detail, const char *summary);

/* Whether every decisive source was read (no verdict-deciding evidence is missing). */
bool ga_health_covered(const struct ga_health_log *log);

/*
 * The verdict: problems when a finding is an error or worse; else unknown
 * when a decisive source is missing (*why, optional: that source's entry);
 * else ok.
 */
enum ga_health_verdict ga_health_verdict(const struct ga_health_log *log, const struct ga_findings *f,
                                         const struct ga_health_cov **why);

/* "ok", "problems", "unknown" */
const char *ga_health_verdict_name(enum ga_health_verdict v);

/* "read", "missing", "skipped" */
const char *ga_hsrc_state_name(enum ga_hsrc_state s);

/*
 * The health report: log's values copied, f's findings moved into r (sorted
 * as they are); the result is ga_health_verdict's, with the coverage.
 * r is zeroed first; release with ga_schema_release. 0 or -ENOMEM.
 */
int ga_health_report_take(struct ga_health_report *r, const struct ga_health_log *log, struct ga_findings *f);

/* GA-PROC-D-STATE (warning) for the n processes names in uninterruptible sleep; none when n is 0. */
int ga_health_dstate_finding(char *const *names, size_t n, struct ga_findings *f);

/* GA-KLOG-UNREADABLE (warning): the kernel log exists but could not be read, for reason why. */
int ga_health_klog_unreadable(const char *why, struct ga_findings *f);

#ifdef __cplusplus
}
#endif
#endif
