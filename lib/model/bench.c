/*
 * bench.c - the benchmark result (gpuaudit.bench/v1) as a model: one table
 * for every kind (exec, http and the primitive reports gemm, stream, transfer,
 * collective, smoke). Each kind's own members are inline groups or fields left
 * out when absent, so a kind is written with exactly its members, in the
 * order the documents have always had; canary reads every kind back through
 * this table (lib/bench/result.c). Fields: docs/schema/bench.md.
 */
#include <stddef.h>

#include "../core/internal.h"
#include "gpuaudit/benchfile.h"

#define T struct ga_bench_doc_bucket
static const struct ga_field bucket_f[] = { GA_FIELD(T, value, GA_F_I64), GA_FIELD(T, count, GA_F_I64) };
#undef T
static const struct ga_schema bucket_s = { "bucket", sizeof(struct ga_bench_doc_bucket), bucket_f,
	                                   GA_ARRAY_SIZE(bucket_f) };

#define T struct ga_bench_doc_hist
static const struct ga_field hist_f[] = {
	GA_FIELD(T, lowest_discernible, GA_F_I64), GA_FIELD(T, highest_trackable, GA_F_I64),
	GA_FIELD(T, significant_digits, GA_F_I64), GA_FIELD(T, value_scale, GA_F_DBL),
	GA_FIELD(T, total_count, GA_F_I64),        GA_FIELD_TUPLES(T, buckets, bucket_s),
};
#undef T
static const struct ga_schema hist_s = { "histogram", sizeof(struct ga_bench_doc_hist), hist_f,
	                                 GA_ARRAY_SIZE(hist_f) };

#define T struct ga_bench_doc_metric
static const struct ga_field metric_f[] = {
	GA_FIELD(T, name, GA_F_STR),
	GA_FIELD(T, unit, GA_F_STR),
	GA_FIELD(T, better, GA_F_STR),
	GA_FIELD_FL(T, samples, GA_F_DBLV, GA_FF_OMIT),
	GA_FIELD_PTR_OMIT(T, histogram, hist_s),
	GA_FIELD(T, median, GA_F_DBL),
	GA_FIELD(T, min, GA_F_DBL),
	GA_FIELD_OMIT(T, max, GA_F_DBL),
};
#undef T
static const struct ga_schema metric_s = { "metric", sizeof(struct ga_bench_doc_metric), metric_f,
	                                   GA_ARRAY_SIZE(metric_f) };

#define T struct ga_bench_doc_run
static const struct ga_field run_f[] = {
	GA_FIELD(T, wall_s, GA_F_DBL),      GA_FIELD(T, user_s, GA_F_DBL),
	GA_FIELD(T, sys_s, GA_F_DBL),       GA_FIELD(T, max_rss_bytes, GA_F_I64),
	GA_FIELD(T, exit_status, GA_F_I64), GA_FIELD(T, signal, GA_F_I64),
	GA_FIELD(T, timed_out, GA_F_BOOL),
};
#undef T
static const struct ga_schema run_s = { "run", sizeof(struct ga_bench_doc_run), run_f, GA_ARRAY_SIZE(run_f) };

#define T struct ga_bench_doc_http_cold
static const struct ga_field http_cold_f[] = { GA_FIELD(T, first_ok_s, GA_F_DBL),
	                                       GA_FIELD_DBLV(T, first_latencies_s) };
#undef T
static const struct ga_schema http_cold_s = { "http_cold", sizeof(struct ga_bench_doc_http_cold), http_cold_f,
	                                      GA_ARRAY_SIZE(http_cold_f) };

#define T struct ga_bench_doc_cold
static const struct ga_field cold_f[] = {
	GA_FIELD_GROUP(T, run, run_s, offsetof(struct ga_bench_doc_run, set)),
	GA_FIELD_GROUP(T, http, http_cold_s, offsetof(struct ga_bench_doc_http_cold, set)),
};
#undef T
static const struct ga_schema cold_s = { "cold_start", sizeof(struct ga_bench_doc_cold), cold_f,
	                                 GA_ARRAY_SIZE(cold_f) };

#define T struct ga_bench_doc_wall
static const struct ga_field wall_f[] = {
	GA_FIELD(T, p50, GA_F_DBL),    GA_FIELD(T, p90, GA_F_DBL), GA_FIELD(T, p95, GA_F_DBL),
	GA_FIELD(T, p99, GA_F_DBL),    GA_FIELD(T, max, GA_F_DBL), GA_FIELD(T, mean, GA_F_DBL),
	GA_FIELD(T, stddev, GA_F_DBL),
};
#undef T
static const struct ga_schema wall_s = { "wall_s", sizeof(struct ga_bench_doc_wall), wall_f,
	                                 GA_ARRAY_SIZE(wall_f) };

#define T struct ga_bench_doc_summary
static const struct ga_field summary_f[] = {
	GA_FIELD_OBJ(T, wall_s, wall_s),        GA_FIELD(T, failed_runs, GA_F_U64),
	GA_FIELD(T, outliers, GA_F_I64),        GA_FIELD(T, slow_first_run, GA_F_BOOL),
	GA_FIELD(T, rss_floor_bytes, GA_F_I64),
};
#undef T
static const struct ga_schema summary_s = { "summary", sizeof(struct ga_bench_doc_summary), summary_f,
	                                    GA_ARRAY_SIZE(summary_f) };

#define T struct ga_bench_doc_latency
static const struct ga_field latency_f[] = {
	GA_FIELD(T, p50, GA_F_DBL),
	GA_FIELD(T, p90, GA_F_DBL),
	GA_FIELD(T, p99, GA_F_DBL),
	{ "p99.9", GA_F_DBL, offsetof(T, p99_9), NULL, 0 },
	{ "p99.99", GA_F_DBL, offsetof(T, p99_99), NULL, 0 },
	GA_FIELD(T, max, GA_F_DBL),
	GA_FIELD(T, mean, GA_F_DBL),
};
#undef T
static const struct ga_schema latency_s = { "latency", sizeof(struct ga_bench_doc_latency), latency_f,
	                                    GA_ARRAY_SIZE(latency_f) };

#define T struct ga_bench_doc_status_classes
static const struct ga_field classes_f[] = {
	GA_FIELD(T, none, GA_F_U64),
	{ "1xx", GA_F_U64, offsetof(T, c1xx), NULL, 0 },
	{ "2xx", GA_F_U64, offsetof(T, c2xx), NULL, 0 },
	{ "3xx", GA_F_U64, offsetof(T, c3xx), NULL, 0 },
	{ "4xx", GA_F_U64, offsetof(T, c4xx), NULL, 0 },
	{ "5xx", GA_F_U64, offsetof(T, c5xx), NULL, 0 },
};
#undef T
static const struct ga_schema classes_s = { "status_classes", sizeof(struct ga_bench_doc_status_classes),
	                                    classes_f, GA_ARRAY_SIZE(classes_f) };

#define T struct ga_bench_doc_exec_head
static const struct ga_field exec_head_f[] = { GA_FIELD(T, command, GA_F_STRV), GA_FIELD(T, shell, GA_F_BOOL),
	                                       GA_FIELD(T, warmup_runs, GA_F_I64) };
#undef T
static const struct ga_schema exec_head_s = { "exec", sizeof(struct ga_bench_doc_exec_head), exec_head_f,
	                                      GA_ARRAY_SIZE(exec_head_f) };

#define T struct ga_bench_doc_http_head
static const struct ga_field http_head_f[] = {
	GA_FIELD(T, url, GA_F_STR),
	GA_FIELD(T, method, GA_F_STR),
	GA_FIELD(T, rate_per_s, GA_F_DBL),
	GA_FIELD(T, duration_s, GA_F_DBL),
	GA_FIELD(T, connections, GA_F_I64),
	GA_FIELD(T, arrivals, GA_F_STR),
	GA_FIELD(T, http_version, GA_F_STR),
	GA_FIELD(T, requests, GA_F_U64),
	GA_FIELD(T, errors, GA_F_U64),
	GA_FIELD(T, error_rate, GA_F_DBL),
	GA_FIELD(T, ok, GA_F_U64),
	GA_FIELD(T, timeouts, GA_F_U64),
	GA_FIELD(T, transport_errors, GA_F_U64),
	GA_FIELD(T, not_sent, GA_F_U64),
	GA_FIELD(T, h2_connection_per_request, GA_F_BOOL),
	GA_FIELD(T, engine, GA_F_STR),
	GA_FIELD(T, retries, GA_F_U64),
	GA_FIELD(T, first_error, GA_F_STR),
	GA_FIELD_OBJ(T, status_classes, classes_s),
	GA_FIELD(T, elapsed_s, GA_F_DBL),
	GA_FIELD(T, achieved_rate_per_s, GA_F_DBL),
};
#undef T
static const struct ga_schema http_head_s = { "http", sizeof(struct ga_bench_doc_http_head), http_head_f,
	                                      GA_ARRAY_SIZE(http_head_f) };

#define T struct ga_bench_doc_http_latency
static const struct ga_field http_lat_f[] = { GA_FIELD_OBJ(T, latency_s, latency_s),
	                                      GA_FIELD_OBJ(T, uncorrected_latency_s, latency_s),
	                                      GA_FIELD_OBJ(T, generator_lag_s, latency_s) };
#undef T
static const struct ga_schema http_lat_s = { "http_latency", sizeof(struct ga_bench_doc_http_latency),
	                                     http_lat_f, GA_ARRAY_SIZE(http_lat_f) };

#define T struct ga_bench_doc_exec_tail
static const struct ga_field exec_tail_f[] = {
	GA_FIELD_OBJ(T, wall_histogram, hist_s),
	GA_FIELD_ARR_FL(T, runs, run_s, GA_FF_LARGE),
};
#undef T
static const struct ga_schema exec_tail_s = { "exec_tail", sizeof(struct ga_bench_doc_exec_tail), exec_tail_f,
	                                      GA_ARRAY_SIZE(exec_tail_f) };

#define T struct ga_bench_doc_backend
static const struct ga_field backend_f[] = {
	GA_FIELD(T, name, GA_F_STR),    GA_FIELD(T, status, GA_F_STR),  GA_FIELD(T, reason, GA_F_STR),
	GA_FIELD(T, version, GA_F_STR), GA_FIELD(T, devices, GA_F_U64),
};
#undef T
static const struct ga_schema backend_s = { "backend", sizeof(struct ga_bench_doc_backend), backend_f,
	                                    GA_ARRAY_SIZE(backend_f) };

#define T struct ga_bench_doc_result
static const struct ga_field result_f[] = {
	GA_FIELD(T, kind, GA_F_STR),
	GA_FIELD(T, backend, GA_F_STR),
	GA_FIELD(T, impl, GA_F_STR),
	GA_FIELD(T, device_index, GA_F_U64),
	GA_FIELD(T, device, GA_F_STR),
	GA_FIELD(T, device_key, GA_F_STR),
	GA_FIELD(T, what, GA_F_STR),
	GA_FIELD(T, family, GA_F_STR),
	GA_FIELD(T, status, GA_F_STR),
	GA_FIELD(T, reason, GA_F_STR),
	GA_FIELD(T, unit, GA_F_STR),
	GA_FIELD(T, median, GA_F_DBL),
	GA_FIELD(T, best, GA_F_DBL),
	GA_FIELD(T, cold_start_s, GA_F_DBL),
	GA_FIELD(T, expected, GA_F_DBL),
	GA_FIELD(T, expected_source, GA_F_STR),
	GA_FIELD(T, percent_of_expected, GA_F_DBL),
	GA_FIELD(T, rel_err, GA_F_DBL),
	GA_FIELD(T, tolerance, GA_F_DBL),
};
#undef T
static const struct ga_schema result_s = { "result", sizeof(struct ga_bench_doc_result), result_f,
	                                   GA_ARRAY_SIZE(result_f) };

#define T struct ga_bench_doc_ratio
static const struct ga_field ratio_f[] = {
	GA_FIELD(T, device_key, GA_F_STR), GA_FIELD(T, what, GA_F_STR),  GA_FIELD(T, fast, GA_F_STR),
	GA_FIELD(T, slow, GA_F_STR),       GA_FIELD(T, ratio, GA_F_DBL), GA_FIELD(T, cliff, GA_F_BOOL),
};
#undef T
static const struct ga_schema ratio_s = { "ratio", sizeof(struct ga_bench_doc_ratio), ratio_f,
	                                  GA_ARRAY_SIZE(ratio_f) };

#define T struct ga_bench_doc_host
static const struct ga_field host_f[] = { GA_FIELD(T, cpu_peak_fp32_flops, GA_F_DBL),
	                                  GA_FIELD(T, cpu_peak_fp64_flops, GA_F_DBL) };
#undef T
static const struct ga_schema host_s = { "host", sizeof(struct ga_bench_doc_host), host_f,
	                                 GA_ARRAY_SIZE(host_f) };

#define T struct ga_bench_doc_prim_head
static const struct ga_field prim_head_f[] = {
	GA_FIELD_OBJ(T, host, host_s),
	GA_FIELD_ARR(T, backends, backend_s),
	GA_FIELD_ARR(T, results, result_s),
};
#undef T
static const struct ga_schema prim_head_s = { "primitive", sizeof(struct ga_bench_doc_prim_head), prim_head_f,
	                                      GA_ARRAY_SIZE(prim_head_f) };

#define T struct ga_bench_doc_prim_tail
static const struct ga_field prim_tail_f[] = { GA_FIELD_ARR(T, ratios, ratio_s),
	                                       GA_FIELD_FINDINGS(T, findings) };
#undef T
static const struct ga_schema prim_tail_s = { "primitive_tail", sizeof(struct ga_bench_doc_prim_tail),
	                                      prim_tail_f, GA_ARRAY_SIZE(prim_tail_f) };

#define T struct ga_bench_doc
static const struct ga_field doc_f[] = {
	GA_FIELD(T, schema, GA_F_STR),
	GA_FIELD(T, kind, GA_F_STR),
	GA_FIELD_GROUP(T, prim, prim_head_s, offsetof(struct ga_bench_doc_prim_head, set)),
	GA_FIELD_GROUP(T, exec, exec_head_s, offsetof(struct ga_bench_doc_exec_head, set)),
	GA_FIELD_GROUP(T, http, http_head_s, offsetof(struct ga_bench_doc_http_head, set)),
	GA_FIELD_PTR_OMIT(T, cold_start, cold_s),
	GA_FIELD_PTR_OMIT(T, summary, summary_s),
	GA_FIELD_GROUP(T, latency, http_lat_s, offsetof(struct ga_bench_doc_http_latency, set)),
	GA_FIELD_ARR(T, metrics, metric_s),
	GA_FIELD_GROUP(T, exec_tail, exec_tail_s, offsetof(struct ga_bench_doc_exec_tail, set)),
	GA_FIELD_GROUP(T, prim_tail, prim_tail_s, offsetof(struct ga_bench_doc_prim_tail, set)),
};
#undef T
const struct ga_schema ga_bench_doc_schema = { "ga_bench_doc", sizeof(struct ga_bench_doc), doc_f,
	                                       GA_ARRAY_SIZE(doc_f) };
