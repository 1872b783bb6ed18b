/*
 * test_exec_stats.c - the statistics of `bench exec` (lib/bench/exec-stats.c):
 * medians from sorted copies (the RSS median was once taken from the runs in
 * run order), failures, outliers, the slow first run, the RSS floor, one
 * real benchmark of /bin/true; and the exec and http documents
 * (lib/bench/load-json.c) read back by canary's reader and, through the
 * gpuaudit.bench/v1 model, written again to the same bytes.
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

#include "gpuaudit/benchfile.h"
#include "gpuaudit/benchfile-run.h"
#include "gpuaudit/model.h"

static struct ga_exec_run run(double wall_s, int64_t rss_bytes)
{
	return (struct ga_exec_run){
		.wall_s = wall_s, .user_s = wall_s / 2, .sys_s = wall_s / 4, .max_rss_bytes = rss_bytes
	};
}

/* Read through the bench model and written again: the same bytes. */
static void model_roundtrip(struct ga_ctx *ctx, const struct ga_buf *b, bool pretty)
{
	const struct ga_model *m = ga_model_find(GA_BENCH_SCHEMA);
	assert_non_null(m);
	struct ga_bench_doc d;
	memset(&d, 0, sizeof(d));
	assert_int_equal(ga_model_read(ctx, m, b->data, b->len, &d), 0);
	struct ga_buf again;
	ga_buf_init(&again, 0);
	assert_int_equal(ga_model_write(m, &d, &again, pretty), 0);
	assert_int_equal(again.len, b->len);
	assert_memory_equal(again.data, b->data, b->len);
	ga_model_release(m, &d);
	ga_buf_release(&again);
}

/* The RSS of the warm runs out of order: the median is 300, not the middle run's 200. */
static void test_rss_median_unsorted(void **state)
{
	(void)state;
	struct ga_exec_run cold = run(1.0, 500);
	struct ga_exec_run runs[] = { run(1.0, 300), run(1.0, 100), run(1.0, 200), run(1.0, 900),
		                      run(1.0, 800) };
	struct ga_exec_summary s;
	assert_int_equal(ga_exec_summarize(&cold, runs, 5, 200, &s), 0);
	assert_float_equal(s.rss_median_bytes, 300, 0);
	/* 300 > 1.05 * 200: above the floor (the run-order "median" 200 said at the floor) */
	assert_false(s.rss_at_floor);
	/* the run order is kept, the sorted copies are sorted */
	assert_float_equal(s.rss[1], 100, 0);
	assert_float_equal(s.rss_sorted[0], 100, 0);
	assert_float_equal(s.rss_sorted[4], 900, 0);
	ga_exec_summary_release(&s);

	assert_int_equal(ga_exec_summarize(&cold, runs, 5, 290, &s), 0);
	assert_true(s.rss_at_floor); /* 300 <= 1.05 * 290 */
	ga_exec_summary_release(&s);
	assert_int_equal(ga_exec_summarize(&cold, runs, 5, -1, &s), 0);
	assert_false(s.rss_at_floor); /* floor unknown */
	ga_exec_summary_release(&s);
}

static void test_wall_stats(void **state)
{
	(void)state;
	struct ga_exec_run cold = run(0.5, 1);
	struct ga_exec_run runs[] = { run(0.3, 1), run(0.1, 1), run(0.2, 1), run(0.2, 1) };
	runs[2].status = 3;
	runs[3].timed_out = true;
	struct ga_exec_summary s;
	assert_int_equal(ga_exec_summarize(&cold, runs, 4, -1, &s), 0);
	assert_int_equal(s.n, 4);
	assert_float_equal(s.wall_median_s, 0.2, 1e-12);
	assert_float_equal(s.wall_sorted[0], 0.1, 0);
	assert_float_equal(s.cpu[0], 0.3 * 0.75, 1e-12);
	assert_int_equal(s.failures, 2);
	assert_float_equal(s.cold_factor, 2.5, 1e-12);
	assert_true(s.slow_first); /* 0.5 > 1.5 * 0.2 */
	assert_int_equal(s.outliers, 0);
	ga_exec_summary_release(&s);

	/* one far-off wall time is an outlier; a cold start near the median is not slow */
	struct ga_exec_run flat[] = { run(1.0, 1), run(1.1, 1), run(0.9, 1), run(1.0, 1),
		                      run(1.1, 1), run(0.9, 1), run(50, 1) };
	cold = run(1.2, 1);
	assert_int_equal(ga_exec_summarize(&cold, flat, 7, -1, &s), 0);
	assert_int_equal(s.outliers, 1);
	assert_false(s.slow_first);
	ga_exec_summary_release(&s);

	/* no warm run: medians NAN, nothing decided */
	assert_int_equal(ga_exec_summarize(&cold, NULL, 0, 100, &s), 0);
	assert_true(isnan(s.wall_median_s));
	assert_true(isnan(s.cold_factor));
	assert_false(s.slow_first);
	assert_false(s.rss_at_floor);
	ga_exec_summary_release(&s);
}

static void test_fail_text(void **state)
{
	(void)state;
	char b[64];
	struct ga_exec_run r = { .status = 3 };
	assert_true(ga_exec_run_failed(&r));
	ga_exec_fail_text(b, sizeof(b), &r);
	assert_string_equal(b, "exit 3");
	r = (struct ga_exec_run){ .status = -1, .signal = 9 };
	ga_exec_fail_text(b, sizeof(b), &r);
	assert_string_equal(b, "killed by signal 9");
	r = (struct ga_exec_run){ .timed_out = true };
	ga_exec_fail_text(b, sizeof(b), &r);
	assert_string_equal(b, "timed out");
	r = (struct ga_exec_run){ 0 };
	assert_false(ga_exec_run_failed(&r));
}

static void test_bench_run_true(void **state)
{
	(void)state;
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	char *argv[] = { "true", NULL };
	struct ga_exec_opts o = { .argv = argv };
	struct ga_exec_bench b;
	long failed_at = 0;
	assert_int_equal(ga_exec_bench_run(ctx, &o, 1, 3, &b, &failed_at), 0);
	assert_int_equal(failed_at, -1);
	assert_int_equal(b.summary.n, 3);
	assert_int_equal(b.wall_hist.total_count, 3);
	assert_int_equal(b.summary.failures, 0);
	assert_true(b.summary.rss_floor_bytes > 0);
	struct ga_buf out;
	ga_buf_init(&out, 0);
	assert_int_equal(ga_exec_bench_json(&b, &out, false), 0);
	assert_non_null(strstr(out.data, "\"schema\":\"gpuaudit.bench/v1\",\"kind\":\"exec\""));
	ga_buf_release(&out);
	ga_exec_bench_release(&b);

	char *missing[] = { "/nonexistent/command", NULL };
	o.argv = missing;
	assert_int_equal(ga_exec_bench_run(ctx, &o, 0, 2, &b, &failed_at), -ENOENT);
	assert_int_equal(failed_at, 0);
	ga_exec_bench_release(&b);
	ga_ctx_free(ctx);
}

/* What bench exec writes, canary reads: the three metrics with their samples. */
static void test_exec_json_reads_back(void **state)
{
	(void)state;
	struct ga_exec_run runs[] = { run(0.3, 1000), run(0.1, 3000), run(0.2, 2000) };
	char *argv[] = { "x", NULL };
	struct ga_exec_bench b = { .argv = argv, .cold = run(0.5, 1000) };
	b.runs = runs;
	assert_int_equal(ga_hist_init(&b.wall_hist, 1, 3600LL * 1000 * 1000 * 1000, 3), 0);
	assert_int_equal(ga_exec_summarize(&b.cold, runs, 3, -1, &b.summary), 0);
	struct ga_buf out;
	ga_buf_init(&out, 0);
	assert_int_equal(ga_exec_bench_json(&b, &out, true), 0);
	assert_non_null(strstr(out.data, "\"rss_floor_bytes\": null"));
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct ga_bench_file *f = NULL;
	assert_int_equal(ga_bench_file_from_json(ctx, out.data, out.len, &f), 0);
	assert_string_equal(f->kind, "exec");
	assert_int_equal(f->n_metrics, 3);
	const struct ga_metric *rss = ga_bench_file_metric(f, "exec.peak_rss");
	assert_non_null(rss);
	assert_int_equal(rss->n_samples, 3);
	assert_float_equal(rss->samples[1], 3000, 0); /* run order */
	assert_false(f->has_requests);
	ga_bench_file_free(f);
	model_roundtrip(ctx, &out, true);
	ga_ctx_free(ctx);
	ga_buf_release(&out);
	ga_exec_summary_release(&b.summary);
	ga_hist_release(&b.wall_hist);
}

/* What bench http writes, canary reads: the latency histogram and the error counts. */
static void test_http_json_reads_back(void **state)
{
	(void)state;
	struct ga_http_result r = { .sent = 9, .not_sent = 1, .ok = 7, .errors = 3, .completed = 9 };
	r.engine = "native";
	r.first_ok_s = -1;
	r.elapsed_s = 1;
	struct ga_hist *hs[] = { &r.latency, &r.service, &r.lag };
	for (int i = 0; i < 3; i++)
		assert_int_equal(ga_hist_init(hs[i], 1, 3600LL * 1000 * 1000 * 1000, 3), 0);
	for (int64_t v = 1; v <= 9; v++)
		ga_hist_record(&r.latency, v * 1000000);
	struct ga_http_opts o = {
		.url = "http://127.0.0.1:1/", .rate = 10, .duration_s = 1, .connections = 1
	};
	assert_string_equal(ga_http_method(&o), "GET");
	struct ga_buf out;
	ga_buf_init(&out, 0);
	assert_int_equal(ga_http_result_json(&o, &r, &out, false), 0);
	assert_non_null(strstr(out.data, "\"requests\":10,\"errors\":3,\"error_rate\":0.3,"));
	assert_non_null(strstr(out.data, "\"first_ok_s\":null"));
	struct ga_ctx *ctx = NULL;
	assert_int_equal(ga_ctx_new(&ctx), 0);
	struct ga_bench_file *f = NULL;
	assert_int_equal(ga_bench_file_from_json(ctx, out.data, out.len, &f), 0);
	assert_string_equal(f->kind, "http");
	assert_true(f->has_requests);
	assert_int_equal(f->requests, 10);
	assert_int_equal(f->errors, 3);
	const struct ga_metric *m = ga_bench_file_metric(f, "http.latency");
	assert_non_null(m);
	assert_non_null(m->hist);
	assert_int_equal(ga_metric_count(m), 9);
	ga_bench_file_free(f);
	model_roundtrip(ctx, &out, false);
	/* every member set: version, first error, cold latencies */
	r.http_version = 20;
	r.first_ok_s = 0.25;
	snprintf(r.first_error, sizeof(r.first_error), "refused");
	double cold[] = { 0.5, 0.125 };
	r.cold_latency_s = cold;
	r.n_cold = 2;
	ga_buf_reset(&out);
	assert_int_equal(ga_http_result_json(&o, &r, &out, true), 0);
	assert_non_null(strstr(out.data, "\"first_latencies_s\": [\n      0.5,\n      0.125\n    ]"));
	assert_non_null(strstr(out.data, "\"http_version\": \"2\""));
	model_roundtrip(ctx, &out, true);
	r.cold_latency_s = NULL;
	ga_ctx_free(ctx);
	ga_buf_release(&out);
	ga_http_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rss_median_unsorted),
		cmocka_unit_test(test_wall_stats),
		cmocka_unit_test(test_fail_text),
		cmocka_unit_test(test_bench_run_true),
		cmocka_unit_test(test_exec_json_reads_back),
		cmocka_unit_test(test_http_json_reads_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
