/*
 * test_hist.c - the HdrHistogram-compatible histogram (lib/bench/hist.c):
 * layout figures, index arithmetic, percentiles against a sorted-array
 * reference, merge, and the percentile-distribution text format.
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

#include "gpuaudit/hist.h"
#include "gpuaudit/stats.h"

static void test_layout(void **state)
{
	(void)state;
	struct ga_hist h;
	/* 1 us .. 1 h in microseconds at 3 digits: HdrHistogram's 22 buckets of 2048, 184 KiB. */
	assert_int_equal(ga_hist_init(&h, 1, 3600LL * 1000 * 1000, 3), 0);
	assert_int_equal(h.sub_bucket_count, 2048);
	assert_int_equal(h.sub_bucket_half_count, 1024);
	assert_int_equal(h.unit_magnitude, 0);
	assert_int_equal(h.bucket_count, 22);
	assert_int_equal(h.counts_len, 23552);
	assert_int_equal((long)h.counts_len * 8 / 1024, 184);
	/* Values below 2048 have their own counter; above, 1024 sub-buckets per doubling. */
	assert_int_equal(ga_hist_counts_index(&h, 0), 0);
	assert_int_equal(ga_hist_counts_index(&h, 2047), 2047);
	assert_int_equal(ga_hist_counts_index(&h, 2048), 2048);
	assert_int_equal(ga_hist_counts_index(&h, 2049), 2048);
	assert_int_equal(ga_hist_counts_index(&h, 4095), 3071);
	assert_int_equal(ga_hist_counts_index(&h, 4096), 3072);
	assert_int_equal(ga_hist_value_at_index(&h, 3071), 4094);
	assert_int_equal(ga_hist_lowest_equivalent(&h, 10001), 10000);
	assert_int_equal(ga_hist_highest_equivalent(&h, 10001), 10007);
	assert_int_equal(ga_hist_median_equivalent(&h, 10001), 10004);
	/* Every value round-trips through its index within 1/1024. */
	for (int64_t v = 1; v < 3600LL * 1000 * 1000; v = v * 3 / 2 + 1) {
		int64_t lo = ga_hist_value_at_index(&h, ga_hist_counts_index(&h, v));
		assert_true(lo <= v);
		assert_true((double)(v - lo) <= (double)v / 1024.0);
		assert_int_equal(lo, ga_hist_lowest_equivalent(&h, v));
	}
	assert_int_equal(ga_hist_record(&h, -1), -ERANGE);
	assert_int_equal(ga_hist_record(&h, 3600LL * 1000 * 1000 * 3), -ERANGE);
	assert_int_equal(h.out_of_range, 2);
	assert_int_equal(h.total_count, 0);
	assert_int_equal(ga_hist_percentile(&h, 99), 0);
	ga_hist_release(&h);
	/* lowest 1000 (ns histogram with 1 us resolution): unit magnitude 9. */
	assert_int_equal(ga_hist_init(&h, 1000, 3600LL * 1000 * 1000 * 1000, 3), 0);
	assert_int_equal(h.unit_magnitude, 9);
	assert_int_equal(h.sub_bucket_mask, 2047LL << 9);
	ga_hist_release(&h);
	assert_int_equal(ga_hist_init(&h, 0, 100, 3), -EINVAL);
	assert_int_equal(ga_hist_init(&h, 1, 100, 6), -EINVAL);
	assert_int_equal(ga_hist_init(&h, 10, 15, 3), -EINVAL);
	ga_hist_release(&h);
}

/* Every percentile equals the highest equivalent value of the sorted array's nearest-rank value. */
static void test_percentiles_vs_sorted(void **state)
{
	(void)state;
	struct ga_hist h;
	assert_int_equal(ga_hist_init(&h, 1, 3600LL * 1000 * 1000 * 1000, 3), 0);
	enum { N = 100000 };
	double *v = malloc(N * sizeof(*v));
	assert_non_null(v);
	struct ga_rng rng;
	ga_rng_seed(&rng, 42);
	for (int i = 0; i < N; i++) {
		/* Log-normal around 2 ms with a heavy tail, in ns. */
		double x = exp(log(2e6) + 0.8 * ga_rng_normal(&rng));
		v[i] = floor(x);
		assert_int_equal(ga_hist_record(&h, (int64_t)v[i]), 0);
	}
	ga_stats_sort(v, N);
	static const double ps[] = { 0, 1, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 99.999, 100 };
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		int64_t want = (int64_t)ga_stats_percentile(v, N, ps[i]);
		int64_t got = ga_hist_percentile(&h, ps[i]);
		int64_t expect = ps[i] == 0 ? ga_hist_lowest_equivalent(&h, want)
		                            : ga_hist_highest_equivalent(&h, want);
		assert_int_equal(got, expect);
		assert_true(fabs((double)(got - want)) <= (double)want / 1000.0);
	}
	assert_int_equal(h.min_value, (int64_t)v[0]);
	assert_int_equal(h.max_value, (int64_t)v[N - 1]);
	assert_int_equal(ga_hist_count_at_or_below(&h, (int64_t)v[N / 2 - 1]) >= N / 2, 1);
	/* Mean within the histogram's resolution. */
	double mean = ga_stats_mean(v, N);
	assert_true(fabs(ga_hist_mean(&h) - mean) / mean < 1e-3);
	free(v);
	ga_hist_release(&h);
}

static void test_merge(void **state)
{
	(void)state;
	struct ga_hist a, b, all, coarse;
	assert_int_equal(ga_hist_init(&a, 1, 1000000000, 3), 0);
	assert_int_equal(ga_hist_init(&b, 1, 1000000000, 3), 0);
	assert_int_equal(ga_hist_init(&all, 1, 1000000000, 3), 0);
	assert_int_equal(ga_hist_init(&coarse, 1, 1000000, 2), 0);
	for (int64_t v = 1; v < 50000000; v = v * 11 / 10 + 7) {
		assert_int_equal(ga_hist_record(v % 2 ? &a : &b, v), 0);
		assert_int_equal(ga_hist_record(&all, v), 0);
	}
	assert_int_equal(ga_hist_merge(&a, &b), 0);
	assert_int_equal(a.total_count, all.total_count);
	assert_memory_equal(a.counts, all.counts, (size_t)a.counts_len * sizeof(int64_t));
	assert_int_equal(a.min_value, all.min_value);
	assert_int_equal(a.max_value, all.max_value);
	/* Into a smaller, coarser histogram: what does not fit is counted, not lost silently. */
	int64_t dropped = ga_hist_merge(&coarse, &all);
	assert_true(dropped > 0);
	assert_int_equal(coarse.total_count + dropped, all.total_count);
	ga_hist_release(&a);
	ga_hist_release(&b);
	ga_hist_release(&all);
	ga_hist_release(&coarse);
}

static void test_spectrum_text(void **state)
{
	(void)state;
	struct ga_hist h;
	assert_int_equal(ga_hist_init(&h, 1, 3600LL * 1000 * 1000, 3), 0);
	for (int64_t v = 1; v <= 10000; v++)
		assert_int_equal(ga_hist_record(&h, v), 0);
	struct ga_hist_row *rows = NULL;
	size_t n = 0;
	assert_int_equal(ga_hist_spectrum(&h, 5, &rows, &n), 0);
	assert_true(n > 20);
	assert_int_equal(rows[0].value, 1);
	assert_float_equal(rows[0].percentile, 0, 0);
	/* 5 rows per halving: 0, 10, 20, 30, 40 then 50, 55, ... */
	assert_float_equal(rows[1].percentile, 10, 1e-9);
	assert_float_equal(rows[5].percentile, 50, 1e-9);
	assert_float_equal(rows[6].percentile, 55, 1e-9);
	assert_int_equal(rows[5].value, 5003); /* 5000 is in the bucket 5000..5003 */
	assert_int_equal(rows[5].total_count, 5003);
	for (size_t i = 1; i < n; i++) {
		assert_true(rows[i].percentile > rows[i - 1].percentile);
		assert_true(rows[i].value >= rows[i - 1].value);
	}
	assert_float_equal(rows[n - 1].percentile, 100, 0);
	assert_int_equal(rows[n - 1].total_count, 10000);
	assert_int_equal(rows[n - 1].value, 10007);
	ga_free(rows);

	struct ga_buf out;
	ga_buf_init(&out, 0);
	assert_int_equal(ga_hist_write_percentiles(&h, 5, 1000.0, &out), 0);
	const char *head = "       Value     Percentile TotalCount 1/(1-Percentile)\n\n"
	                   "       0.001 0.000000000000          1           1.00\n"
	                   "       1.000 0.100000000000       1000           1.11\n";
	assert_memory_equal(out.data, head, strlen(head));
	assert_non_null(strstr(out.data, "       5.003 0.500000000000       5003           2.00\n"));
	assert_non_null(strstr(out.data, "      10.007 1.000000000000      10000\n"
	                                 "#[Mean    =        5.001, StdDeviation   =        2.887]\n"
	                                 "#[Max     =       10.007, Total count    =        10000]\n"
	                                 "#[Buckets =           22, SubBuckets     =         2048]\n"));
	ga_buf_release(&out);
	ga_hist_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_percentiles_vs_sorted),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_spectrum_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
