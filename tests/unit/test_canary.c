/*
 * test_canary.c - the result reader and the canary judge (lib/bench/result.c,
 * lib/bench/canary.c) on results built in memory: a histogram metric's values
 * agree with the histogram's percentiles, a shifted throughput metric is Low
 * and fails, a planted tail regression fails through the tail check only,
 * error counts go through the two-proportion test, and the same inputs give
 * the same report; the reader's refusals through the bench model.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuaudit/canary.h"
#include "gpuaudit/canary-run.h"
#include "gpuaudit/benchfile-run.h"

static struct ga_ctx *ctx;

/* A result with one metric of the given samples. */
static struct ga_bench_file *result(const char *kind, const char *name, const char *unit, const char *better,
                                    const double *v, size_t n, const char *extra)
{
	struct ga_buf b;
	ga_buf_init(&b, 0);
	ga_buf_addf(&b,
	            "{\"schema\":\"gpuaudit.bench/v1\",\"kind\":\"%s\"%s,\"metrics\":[{\"name\":\"%s\","
	            "\"unit\":\"%s\",\"better\":\"%s\",\"samples\":[",
	            kind, extra ? extra : "", name, unit, better);
	for (size_t i = 0; i < n; i++)
		ga_buf_addf(&b, "%s%.17g", i ? "," : "", v[i]);
	ga_buf_adds(&b, "]}]}");
	struct ga_bench_file *r = NULL;
	assert_int_equal(ga_bench_file_from_json(ctx, b.data, b.len, &r), 0);
	ga_buf_release(&b);
	return r;
}

static void test_hist_metric_values(void **state)
{
	(void)state;
	const char *j = "{\"schema\":\"gpuaudit.bench/v1\",\"kind\":\"http\",\"requests\":10,"
	                "\"errors\":1,\"metrics\":[{\"name\":\"http.latency\",\"unit\":\"s\","
	                "\"better\":\"lower\",\"histogram\":{\"lowest_discernible\":1,"
	                "\"highest_trackable\":3600000000000,\"significant_digits\":3,"
	                "\"value_scale\":1e-9,\"buckets\":[[1000000,7],[4096000,2],[10000000,1]]}}]}";
	struct ga_bench_file *r = NULL;
	assert_int_equal(ga_bench_file_from_json(ctx, j, strlen(j), &r), 0);
	assert_true(r->has_requests);
	assert_int_equal(r->requests, 10);
	assert_int_equal(r->errors, 1);
	const struct ga_metric *m = ga_bench_file_metric(r, "http.latency");
	assert_non_null(m);
	assert_int_equal(ga_metric_count(m), 10);
	double *v = NULL;
	size_t n = 0;
	assert_int_equal(ga_metric_values(m, &v, &n), 0);
	assert_int_equal(n, 10);
	/* Each count carries its bucket's highest equivalent value, as the histogram's percentiles. */
	assert_float_equal(v[0], (double)ga_hist_highest_equivalent(m->hist, 1000000) * 1e-9, 1e-15);
	assert_float_equal(v[9], (double)ga_hist_percentile(m->hist, 100) * 1e-9, 1e-15);
	assert_float_equal(v[7], (double)ga_hist_percentile(m->hist, 80) * 1e-9, 1e-15);
	ga_free(v);
	ga_bench_file_free(r);
	/* A value outside the declared range is an error, not a silent drop. */
	const char *bad = "{\"schema\":\"gpuaudit.bench/v1\",\"kind\":\"http\",\"metrics\":[{\"name\":\"x\","
	                  "\"unit\":\"s\",\"better\":\"lower\",\"histogram\":{\"lowest_discernible\":1,"
	                  "\"highest_trackable\":100,\"significant_digits\":3,\"value_scale\":1,"
	                  "\"buckets\":[[1000,1]]}}]}";
	r = NULL;
	assert_int_equal(ga_bench_file_from_json(ctx, bad, strlen(bad), &r), -EINVAL);
	assert_null(r);
	assert_non_null(strstr(ga_ctx_errmsg(ctx), "outside its range"));
}

/* The reader goes through the bench model: its refusals, and canary's own messages kept. */
static void test_read_refusals(void **state)
{
	(void)state;
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "[1]", "not a benchmark result" },
		{ "{\"schema\":\"gpuaudit.bench/v1\",\"kind\":\"exec\"}", "metrics must be an array" },
		{ "{\"schema\":\"gpuaudit.bench/v1\",\"kind\":\"exec\",\"metrics\":{}}",
		  "metrics must be an array" },
		{ "{\"schema\":\"gpuaudit.bench/v1\",\"metrics\":[]}", "kind must be a short string" },
		{ "{\"schema\":\"gpuaudit.bench/"
		  "v1\",\"kind\":\"exec\",\"metrics\":[{\"name\":\"a\",\"unit\":\"s\","
		  "\"better\":\"lower\",\"samples\":[\"x\"]}]}",
		  "metrics[0].samples: expected array of numbers" },
		{ "{\"schema\":\"gpuaudit.bench/"
		  "v1\",\"kind\":\"http\",\"metrics\":[{\"name\":\"a\",\"unit\":\"s\","
		  "\"better\":\"lower\",\"histogram\":{\"lowest_discernible\":1,\"highest_trackable\":100,"
		  "\"significant_digits\":3,\"value_scale\":1,\"buckets\":[[1,-1]]}}]}",
		  "histogram bucket 0 must be [value, count] integers" },
		{ "{\"schema\":\"gpuaudit.bench/v1\",\"kind\":\"http\",\"requests\":3,\"metrics\":[]}",
		  "requests and errors must be integers" },
		{ "{\"schema\":\"gpuaudit.bench/"
		  "v1\",\"kind\":\"gemm\",\"metrics\":[{\"name\":\"a\",\"unit\":\"s\","
		  "\"better\":\"lower\",\"samples\":[1]},{\"name\":\"a\",\"unit\":\"s\",\"better\":\"lower\","
		  "\"samples\":[2]}]}",
		  "metric a appears twice" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ga_bench_file *r = NULL;
		assert_int_equal(ga_bench_file_from_json(ctx, cases[i].text, strlen(cases[i].text), &r),
		                 -EINVAL);
		assert_null(r);
		if (!strstr(ga_ctx_errmsg(ctx), cases[i].msg))
			fail_msg("case %zu: %s", i, ga_ctx_errmsg(ctx));
	}
	/* an empty samples list is a metric with no values, as before */
	const char *empty =
	        "{\"schema\":\"gpuaudit.bench/v1\",\"kind\":\"exec\",\"metrics\":[{\"name\":\"a\","
	        "\"unit\":\"s\",\"better\":\"lower\",\"samples\":[]}]}";
	struct ga_bench_file *r = NULL;
	assert_int_equal(ga_bench_file_from_json(ctx, empty, strlen(empty), &r), 0);
	assert_int_equal(r->n_metrics, 1);
	assert_int_equal(ga_metric_count(&r->metrics[0]), 0);
	ga_bench_file_free(r);
}

static void test_throughput_drop(void **state)
{
	(void)state;
	double a[12], b[12];
	for (int i = 0; i < 12; i++) {
		a[i] = 100e9 + 1e9 * (i % 4);
		b[i] = 88e9 + 1e9 * (i % 4); /* 12% slower */
	}
	struct ga_bench_file *base = result("gemm", "gemm.x", "flop/s", "higher", a, 12, NULL);
	struct ga_bench_file *cand = result("gemm", "gemm.x", "flop/s", "higher", b, 12, NULL);
	struct ga_canary_opts o;
	ga_canary_opts_init(&o);
	struct ga_canary_report *rep = NULL;
	assert_int_equal(ga_canary_judge(ctx, base, cand, &o, &rep), 0);
	assert_int_equal(rep->n_metrics, 1);
	assert_int_equal(rep->metrics[0].cls, GA_CLASS_LOW);
	assert_true(rep->metrics[0].worse);
	assert_int_equal(rep->metrics[0].tail, GA_TAIL_NA);
	assert_true(rep->metrics[0].mwu.exact == false); /* ties: normal approximation */
	assert_int_equal(rep->verdict, GA_VERDICT_ROLLBACK);
	assert_float_equal(rep->score, 0, 0);
	ga_canary_report_free(rep);
	/* The other way round it is an improvement: High for higher-is-better passes. */
	assert_int_equal(ga_canary_judge(ctx, cand, base, &o, &rep), 0);
	assert_int_equal(rep->metrics[0].cls, GA_CLASS_HIGH);
	assert_false(rep->metrics[0].worse);
	assert_int_equal(rep->verdict, GA_VERDICT_PASS);
	assert_float_equal(rep->score, 100, 0);
	ga_canary_report_free(rep);
	ga_bench_file_free(base);
	ga_bench_file_free(cand);
}

/* The minimum practical effect (issue 26): a significant shift under the floor passes; above it fails. */
static void test_min_effect(void **state)
{
	(void)state;
	double a[10], b[10], c[10];
	for (int i = 0; i < 10; i++) {
		a[i] = 0.100 + 0.001 * i;
		b[i] = 0.140 + 0.001 * i; /* +40 ms: every run slower, p = 1.1e-5 */
		c[i] = 0.180 + 0.001 * i; /* +80 ms */
	}
	struct ga_bench_file *base = result("exec", "exec.wall", "s", "lower", a, 10, NULL);
	struct ga_bench_file *slow = result("exec", "exec.wall", "s", "lower", b, 10, NULL);
	struct ga_bench_file *slower = result("exec", "exec.wall", "s", "lower", c, 10, NULL);
	struct ga_canary_opts o;
	ga_canary_opts_init(&o);
	o.no_tail = true;
	struct ga_canary_report *rep = NULL;
	/* exec.wall at 10 runs: max(5 % of 104.5 ms, 2 ms, 200 ms / sqrt(10)) = 63.2 ms */
	assert_int_equal(ga_canary_judge(ctx, base, slow, &o, &rep), 0);
	assert_float_equal(rep->metrics[0].min_effect, 0.2 / sqrt(10), 1e-12);
	assert_true(rep->metrics[0].mwu.p_two_sided < 0.001);
	assert_int_equal(rep->metrics[0].cls, GA_CLASS_PASS);
	assert_int_equal(rep->verdict, GA_VERDICT_PASS);
	ga_canary_report_free(rep);
	assert_int_equal(ga_canary_judge(ctx, base, slower, &o, &rep), 0);
	assert_int_equal(rep->metrics[0].cls, GA_CLASS_HIGH);
	assert_int_equal(rep->verdict, GA_VERDICT_ROLLBACK);
	ga_canary_report_free(rep);
	/* an override replaces the default: 10 ms */
	struct ga_canary_floor fl = { "exec.wall", 0.010, 0, false };
	o.floors = &fl;
	o.n_floors = 1;
	assert_int_equal(ga_canary_judge(ctx, base, slow, &o, &rep), 0);
	assert_float_equal(rep->metrics[0].min_effect, 0.010, 1e-12);
	assert_int_equal(rep->verdict, GA_VERDICT_ROLLBACK);
	ga_canary_report_free(rep);
	ga_bench_file_free(base);
	ga_bench_file_free(slow);
	ga_bench_file_free(slower);
}

/* CPU time below its resolution (10 ms) on both sides is not judged: no pass, no fail. */
static void test_cpu_below_resolution(void **state)
{
	(void)state;
	double a[10], b[10];
	for (int i = 0; i < 10; i++) {
		a[i] = 0.0040 + 0.0001 * i;
		b[i] = 0.0060 + 0.0001 * i; /* +50 %, every run */
	}
	struct ga_bench_file *base = result("exec", "exec.cpu", "s", "lower", a, 10, NULL);
	struct ga_bench_file *cand = result("exec", "exec.cpu", "s", "lower", b, 10, NULL);
	struct ga_canary_opts o;
	ga_canary_opts_init(&o);
	o.no_tail = true;
	struct ga_canary_report *rep = NULL;
	assert_int_equal(ga_canary_judge(ctx, base, cand, &o, &rep), 0);
	assert_int_equal(rep->metrics[0].cls, GA_CLASS_UNJUDGED);
	assert_false(rep->metrics[0].worse);
	assert_int_equal(rep->checks_unjudged, 1);
	assert_int_equal(rep->checks_pass + rep->checks_fail, 0);
	/* nothing decided: INCONCLUSIVE, never PASS */
	assert_int_equal(rep->verdict, GA_VERDICT_INCONCLUSIVE);
	ga_canary_report_free(rep);
	/* with the floor at 0 (relative effect only) it is judged again: a rollback */
	struct ga_canary_floor fl = { "exec.cpu", 0, 0, false };
	o.floors = &fl;
	o.n_floors = 1;
	assert_int_equal(ga_canary_judge(ctx, base, cand, &o, &rep), 0);
	assert_int_equal(rep->metrics[0].cls, GA_CLASS_HIGH);
	assert_int_equal(rep->verdict, GA_VERDICT_ROLLBACK);
	ga_canary_report_free(rep);
	ga_bench_file_free(base);
	ga_bench_file_free(cand);
}

static void test_tail_only_regression(void **state)
{
	(void)state;
	enum { N = 3000 };
	double *a = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double));
	assert_non_null(a);
	assert_non_null(b);
	struct ga_rng rng;
	ga_rng_seed(&rng, 99);
	for (int i = 0; i < N; i++)
		a[i] = 0.01 * exp(0.25 * ga_rng_normal(&rng));
	double *s = malloc(N * sizeof(double));
	memcpy(s, a, N * sizeof(double));
	ga_stats_sort(s, N);
	double p97 = ga_stats_percentile(s, N, 97);
	for (int i = 0; i < N; i++)
		b[i] = a[i] > p97 ? a[i] * 1.3 : a[i];
	struct ga_bench_file *base = result("exec", "exec.wall", "s", "lower", a, N, NULL);
	struct ga_bench_file *cand = result("exec", "exec.wall", "s", "lower", b, N, NULL);
	struct ga_canary_opts o;
	ga_canary_opts_init(&o);
	struct ga_canary_report *rep = NULL, *again = NULL;
	assert_int_equal(ga_canary_judge(ctx, base, cand, &o, &rep), 0);
	assert_int_equal(rep->metrics[0].cls, GA_CLASS_PASS); /* the rank test does not see it */
	assert_int_equal(rep->metrics[0].tail, GA_TAIL_REGRESSION);
	assert_true(rep->metrics[0].tail_ci.lo > 1.1);
	assert_int_equal(rep->verdict, GA_VERDICT_ROLLBACK);
	/* Deterministic: the same inputs and seed give the same interval. */
	assert_int_equal(ga_canary_judge(ctx, base, cand, &o, &again), 0);
	assert_memory_equal(&rep->metrics[0].tail_ci, &again->metrics[0].tail_ci, sizeof(struct ga_boot_ci));
	ga_canary_report_free(again);
	ga_canary_report_free(rep);
	/* With the tail check off only the bulk is judged: PASS. */
	o.no_tail = true;
	assert_int_equal(ga_canary_judge(ctx, base, cand, &o, &rep), 0);
	assert_int_equal(rep->verdict, GA_VERDICT_PASS);
	ga_canary_report_free(rep);
	ga_bench_file_free(base);
	ga_bench_file_free(cand);
	free(a);
	free(b);
	free(s);
}

static void test_errors(void **state)
{
	(void)state;
	double v[20];
	for (int i = 0; i < 20; i++)
		v[i] = 0.001 * (1 + i % 5);
	struct ga_bench_file *base =
	        result("http", "http.latency", "s", "lower", v, 20, ",\"requests\":10000,\"errors\":5");
	struct ga_bench_file *cand =
	        result("http", "http.latency", "s", "lower", v, 20, ",\"requests\":10000,\"errors\":40");
	struct ga_canary_opts o;
	ga_canary_opts_init(&o);
	o.no_tail = true;
	struct ga_canary_report *rep = NULL;
	assert_int_equal(ga_canary_judge(ctx, base, cand, &o, &rep), 0);
	assert_true(rep->errors_checked);
	assert_int_equal(rep->errors_cls, GA_CLASS_HIGH);
	assert_int_equal(rep->verdict, GA_VERDICT_ROLLBACK);
	ga_canary_report_free(rep);
	/* Same error counts: the test passes; an absolute limit below the rate still fails. */
	assert_int_equal(ga_canary_judge(ctx, base, base, &o, &rep), 0);
	assert_int_equal(rep->verdict, GA_VERDICT_PASS);
	ga_canary_report_free(rep);
	o.max_error_rate = 0.0001;
	assert_int_equal(ga_canary_judge(ctx, base, base, &o, &rep), 0);
	assert_true(rep->error_slo_broken);
	assert_int_equal(rep->verdict, GA_VERDICT_ROLLBACK);
	ga_canary_report_free(rep);
	/* Different kinds are refused. */
	struct ga_bench_file *g = result("gemm", "http.latency", "s", "lower", v, 20, NULL);
	assert_int_equal(ga_canary_judge(ctx, base, g, &o, &rep), -EINVAL);
	ga_bench_file_free(g);
	ga_bench_file_free(base);
	ga_bench_file_free(cand);
}

static int setup(void **state)
{
	(void)state;
	return ga_ctx_new(&ctx);
}

static int teardown(void **state)
{
	(void)state;
	ga_ctx_free(ctx);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_metric_values),
		cmocka_unit_test(test_read_refusals),
		cmocka_unit_test(test_throughput_drop),
		cmocka_unit_test(test_min_effect),
		cmocka_unit_test(test_cpu_below_resolution),
		cmocka_unit_test(test_tail_only_regression),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
