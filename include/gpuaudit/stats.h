/*
 * stats.h - the statistics behind bench and canary (no I/O): percentiles,
 * how many samples a percentile needs, outliers, the Mann-Whitney U test (as
 * R's wilcox.test), bootstrap confidence intervals of percentile ratios and
 * the two-proportion test for error rates.
 */
#ifndef GPUAUDIT_STATS_H
#define GPUAUDIT_STATS_H

#include "gpuaudit/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sort a copy: callers keep their order. */
void ga_stats_sort(double *v, size_t n);
/*
 * Percentile pct in [0, 100] of sorted values, HdrHistogram's rule: the value
 * at rank max(1, round(pct/100 * n)) (1-based). NAN when n == 0.
 */
double ga_stats_percentile(const double *sorted, size_t n, double pct);
/* The usual median (mean of the two middle values for even n); NAN when n == 0. */
double ga_stats_median(const double *sorted, size_t n);
double ga_stats_mean(const double *v, size_t n);
/* Sample standard deviation (n - 1); NAN when n < 2. */
double ga_stats_stddev(const double *v, size_t n);

/*
 * Smallest n at which a pct-percentile estimate is trustworthy at the given
 * confidence, by MLPerf LoadGen's early-stopping rule: the smallest n with
 * P(Binomial(n, 1 - pct/100) <= 1) <= 1 - confidence. 64 for p90 and 662 for
 * p99 at confidence 0.99.
 */
size_t ga_stats_min_samples(double pct, double confidence);

/*
 * Modified z-score (x - median) / (1.4826 * MAD) of every value into z
 * (same order as v; all 0 when MAD is 0 and x == median, +-INFINITY when
 * MAD is 0 and x differs). Returns how many exceed threshold in absolute
 * value, or -ENOMEM.
 */
long ga_stats_outliers(const double *v, size_t n, double threshold, double *z);

/* Mann-Whitney U / Wilcoxon rank-sum test of x against y (R: wilcox.test(x, y)). */
struct ga_mwu {
	double w;           /* R's W: rank sum of x minus m(m+1)/2 (= U of x) */
	double auc;         /* w / (m n): P(X > Y) + P(X = Y)/2 */
	double z_two;       /* normal approximation with continuity correction */
	double p_two_sided; /* H1: x and y differ in location */
	double p_greater;   /* H1: x is shifted above y */
	double p_less;      /* H1: x is shifted below y */
	double hl_shift;    /* Hodges-Lehmann median of x_i - y_j (NAN if m n > 4e6) */
	bool exact;         /* exact distribution (m, n < 50 and no ties) */
	bool ties;
};
/*
 * Exact when allowed, both sizes are below 50 and there are no ties (as R);
 * otherwise the normal approximation with tie and continuity correction.
 * 0, -EINVAL (an empty sample or a NaN) or -ENOMEM.
 */
int ga_stats_mwu(const double *x, size_t m, const double *y, size_t n, bool allow_exact, struct ga_mwu *ret);

/* Standard normal upper tail P(Z > z). */
double ga_stats_norm_sf(double z);

/* Seeded PRNG (xoshiro256**), so bootstrap results are reproducible. */
struct ga_rng {
	uint64_t s[4];
};
void ga_rng_seed(struct ga_rng *r, uint64_t seed);
uint64_t ga_rng_next(struct ga_rng *r);
double ga_rng_uniform(struct ga_rng *r); /* (0, 1) */
double ga_rng_normal(struct ga_rng *r);
double ga_rng_gamma(struct ga_rng *r, double shape); /* shape >= 1 */
double ga_rng_exponential(struct ga_rng *r, double rate);

/* Bootstrap confidence interval of the ratio Q_y(pct) / Q_x(pct). */
struct ga_boot_ci {
	double ratio; /* the point estimate from the data */
	double lo, hi;
	int resamples;
};
/*
 * Percentile bootstrap, each arm resampled separately with replacement. The
 * percentile of a resample of n values is its k-th order statistic, which has
 * the distribution of the empirical quantile function at a Beta(k, n-k+1)
 * variable; drawing that instead of n values gives the same bootstrap
 * distribution in O(1) per resample. Inputs are sorted. 0, -EINVAL (empty
 * arm, resamples < 100, confidence outside (0, 1), a baseline value <= 0
 * or a negative candidate value) or -ENOMEM.
 */
int ga_stats_boot_ratio(const double *x_sorted, size_t m, const double *y_sorted, size_t n, double pct,
                        double confidence, int resamples, uint64_t seed, struct ga_boot_ci *ret);
/* The same by literally resampling n values (slow; for tests). */
int ga_stats_boot_ratio_naive(const double *x_sorted, size_t m, const double *y_sorted, size_t n, double pct,
                              double confidence, int resamples, uint64_t seed, struct ga_boot_ci *ret);

/* Two-proportion z-test (pooled) of the error rate e2/n2 against e1/n1. */
struct ga_prop_test {
	double rate1, rate2;
	double z;
	double p_greater; /* H1: rate2 > rate1 */
	double p_two_sided;
};
int ga_stats_two_prop(uint64_t e1, uint64_t n1, uint64_t e2, uint64_t n2, struct ga_prop_test *ret);
/* Upper bound of the Wilson score interval for e errors in n at the confidence (one-sided). */
double ga_stats_rate_upper(uint64_t e, uint64_t n, double confidence);
/* z with P(Z > z) = p, 0 < p < 1 (Acklam's rational approximation, refined once). */
double ga_stats_norm_isf(double p);

#ifdef __cplusplus
}
#endif
#endif
