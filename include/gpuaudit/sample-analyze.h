/*
 * sample-analyze.h - the rates of two raw samples (lib/analyze/rates.c). The samples' types
 * and model are sample.h's.
 */
#ifndef GPUAUDIT_SAMPLE_ANALYZE_H
#define GPUAUDIT_SAMPLE_ANALYZE_H

#include "gpuaudit/sample.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Rates from prev to cur over interval_s seconds. Devices are those of cur,
 * matched to prev by name. Returns 0 or -ENOMEM (*ret untouched then).
 * Release with ga_sample_release.
 */
int ga_sample_rates(const struct ga_sample_raw *prev, const struct ga_sample_raw *cur, double interval_s,
                    struct ga_sample *ret);

void ga_sample_release(struct ga_sample *s);

/* Percent of delta over total; null when total is 0. Exposed for tests. */
struct ga_odbl ga_rate_pct(uint64_t delta, uint64_t total);

/* (cur - prev) / interval_s; null on a counter that went backwards or interval_s <= 0. */
struct ga_odbl ga_rate_per_s(uint64_t prev, uint64_t cur, double interval_s);

#ifdef __cplusplus
}
#endif
#endif
