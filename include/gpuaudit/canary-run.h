/*
 * canary-run.h - the canary's judgement of a bench against its baseline (lib/bench/canary.c,
 * canary-doc.c). The types and the gpuaudit.canary/v1 model are canary.h's.
 */
#ifndef GPUAUDIT_CANARY_RUN_H
#define GPUAUDIT_CANARY_RUN_H

#include "gpuaudit/canary.h"

#ifdef __cplusplus
extern "C" {
#endif

void ga_canary_opts_init(struct ga_canary_opts *o);

/* The floor of metric: o's override, else the default, else NULL (relative effect only). */
const struct ga_canary_floor *ga_canary_floor_find(const struct ga_canary_opts *o, const char *metric);

/* Fill d (zeroed by the caller) from a report. 0 or -ENOMEM; release with ga_canary_doc_release. */
int ga_canary_doc_init(struct ga_canary_doc *d, const struct ga_canary_report *r,
                       const struct ga_canary_opts *o, const char *baseline, const char *candidate);

void ga_canary_doc_release(struct ga_canary_doc *d);

/*
 * 0, -EINVAL (different kinds, with a message) or -ENOMEM. The report is
 * deterministic for given inputs and options (seeded bootstrap).
 */
int ga_canary_judge(struct ga_ctx *ctx, const struct ga_bench_file *base, const struct ga_bench_file *cand,
                    const struct ga_canary_opts *opts, struct ga_canary_report **ret);

void ga_canary_report_free(struct ga_canary_report *r);

const char *ga_canary_class_name(enum ga_canary_class c);

const char *ga_canary_tail_name(enum ga_canary_tail t);

const char *ga_canary_verdict_name(enum ga_canary_verdict v);

#ifdef __cplusplus
}
#endif
#endif
