/*
 * test_stats.c - lib/bench/stats.c against known values: R's wilcox.test on
 * its documented example and a tied sample, the MLPerf early-stopping sample
 * counts, modified z-scores, the bootstrap of a percentile ratio (against
 * literal resampling and the known ratio of two planted distributions), and
 * the two-proportion test.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/stats.h"

static void test_percentile_rules(void **state)
{
	(void)state;
	double v[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	assert_float_equal(ga_stats_percentile(v, 10, 0), 1, 0);
	assert_float_equal(ga_stats_percentile(v, 10, 50), 5, 0);  /* rank round(5) = 5 */
	assert_float_equal(ga_stats_percentile(v, 10, 55), 6, 0);  /* rank round(5.5) = 6 */
	assert_float_equal(ga_stats_percentile(v, 10, 99), 10, 0); /* rank round(9.9) = 10 */
	assert_float_equal(ga_stats_percentile(v, 10, 100), 10, 0);
	assert_float_equal(ga_stats_median(v, 10), 5.5, 0);
	assert_float_equal(ga_stats_median(v, 9), 5, 0);
	assert_true(isnan(ga_stats_percentile(v, 0, 50)));
	assert_float_equal(ga_stats_stddev(v, 10), 3.0276503540974917, 1e-12);
	/* MLPerf LoadGen early stopping: 64 queries for p90, 662 for p99 (99% confidence). */
	assert_int_equal(ga_stats_min_samples(90, 0.99), 64);
	assert_int_equal(ga_stats_min_samples(99, 0.99), 662);
	assert_int_equal(ga_stats_min_samples(99.9, 0.99), 6636);
	assert_int_equal(ga_stats_min_samples(100, 0.99), 0);
}

static void test_outliers(void **state)
{
	(void)state;
	/* median 10, |deviations| 0,0,1,1,1,1,90 -> MAD 1; z of 100 = 90/1.4826 = 60.7. */
	double v[] = { 10, 9, 11, 10, 9, 11, 100 };
	double z[7];
	assert_int_equal(ga_stats_outliers(v, 7, 10.0, z), 1);
	assert_float_equal(z[6], 90 / 1.4826, 1e-9);
	assert_float_equal(z[1], -1 / 1.4826, 1e-9);
	assert_float_equal(z[0], 0, 0);
	double flat[] = { 5, 5, 5, 6 };
	assert_int_equal(ga_stats_outliers(flat, 4, 10.0, z), 1);
	assert_true(isinf(z[3]));
}

/*
 * R's documented example (?wilcox.test, Hollander & Wolfe p. 110):
 *   x <- c(0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46)
 *   y <- c(1.15, 0.88, 0.90, 0.74, 1.21)
 *   wilcox.test(x, y, alternative = "g")   # W = 35, p-value = 0.1272 (exact)
 *   wilcox.test(x, y)                      # W = 35, p-value = 0.2544
 *   wilcox.test(x, y, alternative = "g", exact = FALSE)  # p-value = 0.1223
 * The exact value is 0.12720612720612... = 1 - P(W <= 34) for m = 10, n = 5.
 */
static void test_mwu_r_example(void **state)
{
	(void)state;
	double x[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46 };
	double y[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
	struct ga_mwu r;
	assert_int_equal(ga_stats_mwu(x, 10, y, 5, true, &r), 0);
	assert_true(r.exact);
	assert_false(r.ties);
	assert_float_equal(r.w, 35, 0);
	assert_float_equal(r.auc, 0.7, 1e-12);
	assert_float_equal(r.p_greater, 0.12720612720612720, 1e-12);
	assert_float_equal(r.p_two_sided, 0.2544122544122544, 1e-12);
	assert_float_equal(r.p_less, 0.8967698967698968, 1e-12); /* P(W <= 35) */
	assert_int_equal(ga_stats_mwu(x, 10, y, 5, false, &r), 0);
	assert_false(r.exact);
	assert_float_equal(r.p_greater, 0.12231180256349172, 1e-12);
	assert_float_equal(r.p_two_sided, 0.24462360512698345, 1e-12);
	assert_float_equal(r.z_two, 1.1635076278220096, 1e-12);
	/* Hodges-Lehmann shift: median of the 50 differences x_i - y_j. */
	assert_float_equal(r.hl_shift, 0.305, 1e-12);
}

/*
 * Ties force the normal approximation with the tie correction, as R:
 *   wilcox.test(c(1,2,2,3,4), c(2,3,3,5,6,7))
 *   # W = 6, p-value = 0.1139 (warning: cannot compute exact p-value with ties)
 *   wilcox.test(c(1,2,2,3,4), c(2,3,3,5,6,7), alternative = "less")   # p = 0.05695
 * sigma^2 = (30/12) * (12 - (6 + 24 + 6) / (11 * 10)) with tie groups 2 (x3) and 3 (x2).
 */
static void test_mwu_ties(void **state)
{
	(void)state;
	double x[] = { 1, 2, 2, 3, 4 };
	double y[] = { 2, 3, 3, 5, 6, 7 };
	struct ga_mwu r;
	assert_int_equal(ga_stats_mwu(x, 5, y, 6, true, &r), 0);
	assert_false(r.exact);
	assert_true(r.ties);
	assert_float_equal(r.w, 6, 0);
	assert_float_equal(r.p_two_sided, 0.11390314458853065, 1e-12);
	assert_float_equal(r.p_less, 0.056951572294265326, 1e-12);
	assert_float_equal(r.p_greater, 0.9613756091726351, 1e-12);
	/* All values equal: no evidence either way. */
	double same[] = { 3, 3, 3 };
	assert_int_equal(ga_stats_mwu(same, 3, same, 3, true, &r), 0);
	assert_float_equal(r.p_two_sided, 1, 0);
	assert_int_equal(ga_stats_mwu(x, 0, y, 6, true, &r), -EINVAL);
	double bad[] = { 1, NAN };
	assert_int_equal(ga_stats_mwu(bad, 2, y, 6, true, &r), -EINVAL);
}

/* Exact distribution for larger samples: symmetric and with the right mean (m = 40, n = 45). */
static void test_mwu_exact_large(void **state)
{
	(void)state;
	double x[40], y[45];
	for (int i = 0; i < 40; i++)
		x[i] = 2 * i; /* even numbers interleave the odd ones: W = mn/2 exactly */
	for (int j = 0; j < 45; j++)
		y[j] = 2 * j - 4 + 1;
	struct ga_mwu r;
	assert_int_equal(ga_stats_mwu(x, 40, y, 45, true, &r), 0);
	assert_true(r.exact);
	/* W is the number of (x, y) pairs with x > y. */
	int w = 0;
	for (int i = 0; i < 40; i++)
		for (int j = 0; j < 45; j++)
			w += x[i] > y[j];
	assert_float_equal(r.w, w, 0);
	struct ga_mwu a;
	assert_int_equal(ga_stats_mwu(x, 40, y, 45, false, &a), 0);
	/* The normal approximation agrees with the exact p-value at these sizes. */
	assert_float_equal(r.p_two_sided, a.p_two_sided, 0.01);
}

static void test_bootstrap(void **state)
{
	(void)state;
	enum { N = 4000 };
	double *x = malloc(N * sizeof(double)), *y = malloc(N * sizeof(double));
	assert_non_null(x);
	assert_non_null(y);
	struct ga_rng rng;
	ga_rng_seed(&rng, 7);
	for (int i = 0; i < N; i++) {
		x[i] = ga_rng_exponential(&rng, 1.0) + 1;
		y[i] = 1.2 * (ga_rng_exponential(&rng, 1.0) + 1); /* every quantile 20% higher */
	}
	ga_stats_sort(x, N);
	ga_stats_sort(y, N);
	struct ga_boot_ci ci, again, naive;
	assert_int_equal(ga_stats_boot_ratio(x, N, y, N, 99, 0.95, 2000, 1, &ci), 0);
	/* Seeded: the same interval every time. */
	assert_int_equal(ga_stats_boot_ratio(x, N, y, N, 99, 0.95, 2000, 1, &again), 0);
	assert_memory_equal(&ci, &again, sizeof(ci));
	assert_true(ci.lo < 1.2 && ci.hi > 1.2);
	assert_true(ci.lo > 1.0);
	assert_true(ci.lo <= ci.ratio && ci.ratio <= ci.hi);
	/* Literal resampling gives the same interval up to Monte Carlo noise. */
	assert_int_equal(ga_stats_boot_ratio_naive(x, N, y, N, 99, 0.95, 400, 2, &naive), 0);
	assert_float_equal(naive.ratio, ci.ratio, 0);
	assert_float_equal(naive.lo, ci.lo, 0.03);
	assert_float_equal(naive.hi, ci.hi, 0.03);
	/* The same data on both sides: an interval around 1. */
	assert_int_equal(ga_stats_boot_ratio(x, N, x, N, 50, 0.95, 2000, 3, &ci), 0);
	assert_float_equal(ci.ratio, 1, 0);
	assert_true(ci.lo < 1 && ci.hi > 1 && ci.hi - ci.lo < 0.1);
	assert_int_equal(ga_stats_boot_ratio(x, 0, y, N, 99, 0.95, 2000, 1, &ci), -EINVAL);
	assert_int_equal(ga_stats_boot_ratio(x, N, y, N, 99, 0.95, 10, 1, &ci), -EINVAL);
	free(x);
	free(y);
}

static void test_two_prop(void **state)
{
	(void)state;
	struct ga_prop_test t;
	/* 10/1000 vs 30/1000: pooled 0.02, se = sqrt(0.02*0.98*0.002) = 0.0062610, z = 3.1944. */
	assert_int_equal(ga_stats_two_prop(10, 1000, 30, 1000, &t), 0);
	assert_float_equal(t.z, 0.02 / sqrt(0.02 * 0.98 * 0.002), 1e-12);
	assert_float_equal(t.p_greater, 0.00070065079, 1e-9);
	assert_int_equal(ga_stats_two_prop(0, 100, 0, 100, &t), 0);
	assert_float_equal(t.p_greater, 1, 0);
	assert_int_equal(ga_stats_two_prop(5, 4, 0, 100, &t), -EINVAL);
	/* Zero errors in n: the 95% upper bound is close to the rule of three, 3/n. */
	double up = ga_stats_rate_upper(0, 1000, 0.95);
	assert_true(up > 2.0 / 1000 && up < 3.5 / 1000);
	assert_float_equal(ga_stats_norm_isf(0.025), 1.959963984540054, 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile_rules), cmocka_unit_test(test_outliers),
		cmocka_unit_test(test_mwu_r_example),    cmocka_unit_test(test_mwu_ties),
		cmocka_unit_test(test_mwu_exact_large),  cmocka_unit_test(test_bootstrap),
		cmocka_unit_test(test_two_prop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
