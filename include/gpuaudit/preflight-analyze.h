/*
 * preflight-analyze.h - what analyze decides in preflight (lib/analyze/preflight.c): step
 * statuses and how they combine, the container view, the warm-up cases. The report's types and
 * model are preflight.h's.
 */
#ifndef GPUAUDIT_PREFLIGHT_ANALYZE_H
#define GPUAUDIT_PREFLIGHT_ANALYZE_H

#include "gpuaudit/preflight.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "pass", "fail", "unknown", "skip". */
const char *ga_pf_status_name(enum ga_pf_status s);

/* Error-level (and worse) findings in f. */
size_t ga_pf_errors(const struct ga_findings *f);

/*
 * A step judged by its findings: unknown when the analysis failed, fail with
 * any error-level finding, else pass. *errors (may be NULL) gets their count.
 */
enum ga_pf_status ga_pf_status_of_findings(const struct ga_findings *f, bool analysis_failed, size_t *errors);

/* The check step from the policy check's result. */
enum ga_pf_status ga_pf_status_of_check(enum ga_check_result r);

/* The overall result: fail if any step failed, else unknown if any is, else pass (skips count as pass). */
enum ga_pf_status ga_pf_result(const enum ga_pf_status *steps, size_t n);

/* Failures, errors (unknown) and skips among steps (JUnit's suite counts). */
void ga_pf_count(const enum ga_pf_status *steps, size_t n, size_t *fail, size_t *unknown, size_t *skip);

/*
 * The warm-up as two test cases: the cold start and the warm runs. A warm-up
 * command that got past its cold start (n_runs > 1) passed it whatever the
 * warm runs did; warm runs that never started (the cold start failed) are
 * skipped. With the built-in warm-up, both are the step's status.
 */
void ga_pf_warmup_cases(enum ga_pf_status warmup, bool command, size_t n_runs, enum ga_pf_status *cold,
                        enum ga_pf_status *warm);

/*
 * The container view of node n (NULL in *ret when n is not a container: no
 * container hint in its files and, live, no KUBERNETES_SERVICE_HOST; or when the
 * node has no NVIDIA GPU, since the view compares NVIDIA GPUs). Pure
 * (lib/analyze/container.c). 0 or -ENOMEM; free with ga_pf_container_free.
 */
int ga_pf_container_view(const struct ga_node *n, const char *nvidia_visible_devices, bool kubernetes_env,
                         struct ga_pf_doc_container **ret);

#ifdef __cplusplus
}
#endif
#endif
