/*
 * hist_bench.c - cost of the HdrHistogram-compatible histogram
 * (lib/bench/hist.c): ns per recorded value, per percentile query and per
 * merge, on 10 million log-normal latencies (ns) generated before timing.
 * Prints one line per figure: the median of 5 repetitions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpuaudit/hist.h"
#include "gpuaudit/stats.h"

#define N 10000000
#define REPS 5

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v[n / 2];
}

int main(void)
{
	int64_t *vals = malloc(N * sizeof(*vals));
	if (!vals)
		return 1;
	struct ga_rng rng;
	ga_rng_seed(&rng, 1);
	for (int i = 0; i < N; i++)
		vals[i] = (int64_t)exp(log(2e6) + 0.8 * ga_rng_normal(&rng));
	struct ga_hist h, h2;
	if (ga_hist_init(&h, 1, 3600LL * 1000 * 1000 * 1000, 3) < 0 ||
	    ga_hist_init(&h2, 1, 3600LL * 1000 * 1000 * 1000, 3) < 0)
		return 1;
	double rec[REPS], pct[REPS], mrg[REPS];
	volatile int64_t sink = 0;
	for (int r = 0; r < REPS; r++) {
		ga_hist_reset(&h);
		double t0 = now_s();
		for (int i = 0; i < N; i++)
			ga_hist_record(&h, vals[i]);
		rec[r] = (now_s() - t0) / N * 1e9;
		t0 = now_s();
		for (int k = 0; k < 1000; k++)
			sink += ga_hist_percentile(&h, 99.9);
		pct[r] = (now_s() - t0) / 1000 * 1e9;
		t0 = now_s();
		for (int k = 0; k < 100; k++)
			ga_hist_merge(&h2, &h);
		mrg[r] = (now_s() - t0) / 100 * 1e9;
	}
	printf("histogram: %d buckets x %d sub-buckets, %d counters (%ld KiB)\n", h.bucket_count,
	       h.sub_bucket_count, h.counts_len, (long)h.counts_len * 8 / 1024);
	printf("record: %.2f ns per value (median of %d runs of %d values)\n", median(rec, REPS), REPS, N);
	printf("percentile (p99.9): %.0f ns per query\n", median(pct, REPS));
	printf("merge: %.0f us per merge of a full histogram\n", median(mrg, REPS) / 1000);
	free(vals);
	ga_hist_release(&h);
	ga_hist_release(&h2);
	return sink == 42 ? 1 : 0;
}
