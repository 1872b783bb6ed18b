/*
 * hist.h - a log-linear latency histogram with HdrHistogram's layout and
 * percentile semantics (no I/O).
 *
 * Values are positive integers (nanoseconds for latencies). With s significant
 * digits the histogram keeps 2^ceil(log2(2*10^s)) sub-buckets per power of two
 * (2048 for s=3), so every value is recorded within a relative error of about
 * 1/1024 at s=3. Counts are laid out exactly as in HdrHistogram (same bucket
 * index, sub-bucket index and counts index), a percentile is the bucket where
 * the running count reaches round(p*N), reported as that bucket's highest
 * equivalent value, and the percentile spectrum is written in HdrHistogram's
 * "percentile distribution" text format, so HdrHistogram's tools (plotter,
 * HistogramLogAnalyzer) read gpuaudit's output.
 */
#ifndef GPUAUDIT_HIST_H
#define GPUAUDIT_HIST_H

#include "gpuaudit/core.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ga_hist {
	int64_t lowest_discernible; /* >= 1 */
	int64_t highest_trackable;  /* >= 2 * lowest_discernible */
	int sig_digits;             /* 1..5 */
	int unit_magnitude;
	int sub_bucket_half_count_magnitude;
	int32_t sub_bucket_count;
	int32_t sub_bucket_half_count;
	int64_t sub_bucket_mask;
	int32_t bucket_count;
	int32_t counts_len;
	int64_t total_count;
	int64_t min_value;     /* INT64_MAX when empty */
	int64_t max_value;     /* 0 when empty */
	uint64_t out_of_range; /* record calls with values outside [0, highest_trackable] */
	int64_t *counts;
};

/* 0, -EINVAL (bad range or digits) or -ENOMEM. */
int ga_hist_init(struct ga_hist *h, int64_t lowest_discernible, int64_t highest_trackable, int sig_digits);
/* Frees the counts; NULL-safe, and safe on a zeroed struct. */
void ga_hist_release(struct ga_hist *h);
void ga_hist_reset(struct ga_hist *h);
/* Record a value count times. 0, or -ERANGE (value < 0 or > highest: counted in out_of_range). */
int ga_hist_record_n(struct ga_hist *h, int64_t value, int64_t count);
static inline int ga_hist_record(struct ga_hist *h, int64_t value)
{
	return ga_hist_record_n(h, value, 1);
}
/* Add every count of src into dst (any layouts); returns how many values did not fit. */
int64_t ga_hist_merge(struct ga_hist *dst, const struct ga_hist *src);

/* Layout helpers (HdrHistogram semantics). */
int32_t ga_hist_counts_index(const struct ga_hist *h, int64_t value);
int64_t ga_hist_value_at_index(const struct ga_hist *h, int32_t index);
int64_t ga_hist_lowest_equivalent(const struct ga_hist *h, int64_t value);
int64_t ga_hist_highest_equivalent(const struct ga_hist *h, int64_t value);
int64_t ga_hist_median_equivalent(const struct ga_hist *h, int64_t value);

/* Percentile in [0, 100]: 0 when the histogram is empty. */
int64_t ga_hist_percentile(const struct ga_hist *h, double percentile);
/* Mean and standard deviation over the median equivalent values (as HdrHistogram). */
double ga_hist_mean(const struct ga_hist *h);
double ga_hist_stddev(const struct ga_hist *h);
/* Number of recorded values <= value (by bucket). */
int64_t ga_hist_count_at_or_below(const struct ga_hist *h, int64_t value);

/* One row of the percentile spectrum. */
struct ga_hist_row {
	int64_t value;       /* highest equivalent value of the bucket */
	double percentile;   /* 0..100 */
	int64_t total_count; /* cumulative count up to this bucket */
};
/*
 * The spectrum: ticks_per_half rows per halving of the remaining tail, then a
 * final 100% row (HdrHistogram's percentile iterator). *ret is an array of
 * *ret_n rows (ga_free). 0 or -ENOMEM. An empty histogram gives no rows.
 */
int ga_hist_spectrum(const struct ga_hist *h, int ticks_per_half, struct ga_hist_row **ret, size_t *ret_n);
/*
 * Append the spectrum in HdrHistogram's percentile-distribution text format
 * (Value, Percentile, TotalCount, 1/(1-Percentile), then the #[Mean ...] footer),
 * values divided by value_scale (e.g. 1e6 for ns printed as ms).
 */
int ga_hist_write_percentiles(const struct ga_hist *h, int ticks_per_half, double value_scale,
                              struct ga_buf *out);

#ifdef __cplusplus
}
#endif
#endif
