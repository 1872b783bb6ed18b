/*
 * preflight.h - the decisions of `gpuaudit preflight` (lib/analyze/preflight.c):
 * each step's status from what it found, the overall result, and how the
 * warm-up's runs read as test cases. The command runs the steps and prints;
 * what a result means lives here, where a unit test reaches it.
 */
#ifndef GPUAUDIT_PREFLIGHT_H
#define GPUAUDIT_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuaudit/findings.h"
#include "gpuaudit/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ga_pf_status { GA_PF_PASS, GA_PF_FAIL, GA_PF_UNKNOWN, GA_PF_SKIP };
#define GA_PF_N_STATUS 4

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

#ifdef __cplusplus
}
#endif
#endif
