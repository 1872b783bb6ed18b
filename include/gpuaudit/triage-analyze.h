/*
 * triage-analyze.h - what analyze decides in triage (lib/analyze/triage.c): the run over
 * samples and the kernel log, its points and the report filled from it. The report's types and
 * the gpuaudit.triage/v1 model are triage.h's.
 */
#ifndef GPUAUDIT_TRIAGE_ANALYZE_H
#define GPUAUDIT_TRIAGE_ANALYZE_H

#include "gpuaudit/triage.h"

#ifdef __cplusplus
extern "C" {
#endif

void ga_triage_point_from_sample(const struct ga_sample_doc *d, struct ga_triage_point *p);

/*
 * Run the playbook. n may be NULL (no topology or device-count checks); f may
 * be NULL; pts may be empty; w may be NULL (no workload checks). The log as
 * read (ga_triage_run: not reported, taken as read).
 */
void ga_triage_run(const struct ga_node *n, const struct ga_findings *f, const struct ga_triage_point *pts,
                   size_t n_pts, const struct ga_triage_workload *w, struct ga_triage *ret);

/* The same with what step 1 saw of the kernel log (k NULL: as ga_triage_run). */
void ga_triage_run_klog(const struct ga_node *n, const struct ga_findings *f, const struct ga_triage_klog *k,
                        const struct ga_triage_point *pts, size_t n_pts, const struct ga_triage_workload *w,
                        struct ga_triage *ret);

/* The report of t over n_pts points; f's findings move into r. r is zeroed first;
 * release with ga_schema_release(&ga_triage_report_schema, r). 0 or -ENOMEM. */
int ga_triage_report_take(struct ga_triage_report *r, const struct ga_triage *t, size_t n_pts,
                          struct ga_findings *f);

/* "0-3,8,10-11" into a bitmap of nbits bits; CPUs past nbits are ignored. Count set, or -1 if malformed. */
int ga_triage_cpulist(const char *s, unsigned char *bits, size_t nbits);

/* Is NAME one of the names LIST (NCCL syntax: comma list, "^" excludes, "=" exact, else prefix,
 * ":port" suffixes ignored) selects among the candidates? Returns the first selector that matches
 * none of the candidates in *missing (static buffer of the caller), or 0 when all match. */
int ga_triage_nccl_missing(const char *list, const char *const *cands, size_t n_cands, char *missing,
                           size_t missing_len);

#ifdef __cplusplus
}
#endif
#endif
