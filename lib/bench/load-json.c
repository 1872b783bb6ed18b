/*
 * load-json.c - the gpuaudit.bench/v1 documents of the workload benchmarks,
 * kind exec (`bench exec`) and kind http (`bench http`), written here in the
 * library rather than in the commands so that serve and library users get the
 * same bytes. The metrics array is the one canary reads (result.c).
 */
#include <math.h>

#include "gpuaudit/benchfile.h"
#include "gpuaudit/stats.h"

static void json_run(struct ga_json *w, const struct ga_exec_run *r)
{
	ga_json_obj_begin(w);
	ga_json_key(w, "wall_s");
	ga_json_dbl(w, r->wall_s);
	ga_json_key(w, "user_s");
	ga_json_dbl(w, r->user_s);
	ga_json_key(w, "sys_s");
	ga_json_dbl(w, r->sys_s);
	ga_json_key(w, "max_rss_bytes");
	ga_json_i64(w, r->max_rss_bytes);
	ga_json_key(w, "exit_status");
	if (r->status >= 0)
		ga_json_i64(w, r->status);
	else
		ga_json_null(w);
	ga_json_key(w, "signal");
	if (r->signal)
		ga_json_i64(w, r->signal);
	else
		ga_json_null(w);
	ga_json_key(w, "timed_out");
	ga_json_bool(w, r->timed_out);
	ga_json_obj_end(w);
}

static void json_exec_summary(struct ga_json *w, const struct ga_exec_summary *s)
{
	static const double ps[] = { 50, 90, 95, 99 };
	static const char *const pn[] = { "p50", "p90", "p95", "p99" };
	ga_json_obj_begin(w);
	ga_json_key(w, "wall_s");
	ga_json_obj_begin(w);
	for (size_t i = 0; i < 4; i++) {
		ga_json_key(w, pn[i]);
		ga_json_dbl(w, ga_stats_percentile(s->wall_sorted, s->n, ps[i]));
	}
	ga_json_key(w, "max");
	ga_json_dbl(w, s->n ? s->wall_sorted[s->n - 1] : NAN);
	ga_json_key(w, "mean");
	ga_json_dbl(w, ga_stats_mean(s->wall, s->n));
	ga_json_key(w, "stddev");
	ga_json_dbl(w, ga_stats_stddev(s->wall, s->n));
	ga_json_obj_end(w);
	ga_json_key(w, "failed_runs");
	ga_json_u64(w, s->failures);
	ga_json_key(w, "outliers");
	ga_json_i64(w, s->outliers);
	ga_json_key(w, "slow_first_run");
	ga_json_bool(w, s->slow_first);
	ga_json_key(w, "rss_floor_bytes");
	if (s->rss_floor_bytes >= 0)
		ga_json_i64(w, s->rss_floor_bytes);
	else
		ga_json_null(w);
	ga_json_obj_end(w);
}

static void write_exec(struct ga_json *w, const struct ga_exec_bench *b)
{
	const struct ga_exec_summary *s = &b->summary;
	ga_json_obj_begin(w);
	ga_json_key(w, "schema");
	ga_json_str(w, GA_BENCH_SCHEMA);
	ga_json_key(w, "kind");
	ga_json_str(w, "exec");
	ga_json_key(w, "command");
	ga_json_arr_begin(w);
	for (char *const *a = b->argv; *a; a++)
		ga_json_str(w, *a);
	ga_json_arr_end(w);
	ga_json_key(w, "shell");
	ga_json_bool(w, b->shell);
	ga_json_key(w, "warmup_runs");
	ga_json_i64(w, b->warmup_runs);
	ga_json_key(w, "cold_start");
	json_run(w, &b->cold);
	ga_json_key(w, "summary");
	json_exec_summary(w, s);
	ga_json_key(w, "metrics");
	ga_json_arr_begin(w);
	ga_metric_write_json(w, "exec.wall", "s", false, s->wall, s->n, NULL, 0);
	ga_metric_write_json(w, "exec.cpu", "s", false, s->cpu, s->n, NULL, 0);
	ga_metric_write_json(w, "exec.peak_rss", "byte", false, s->rss, s->n, NULL, 0);
	ga_json_arr_end(w);
	ga_json_key(w, "wall_histogram");
	ga_hist_write_json(w, &b->wall_hist, 1e-9);
	ga_json_key(w, "runs");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < s->n; i++)
		json_run(w, &b->runs[i]);
	ga_json_arr_end(w);
	ga_json_obj_end(w);
}

int ga_exec_bench_json(const struct ga_exec_bench *b, struct ga_buf *out, bool pretty)
{
	struct ga_json w;
	ga_json_init(&w, out, pretty);
	write_exec(&w, b);
	return ga_json_finish(&w);
}

/* ------------------------------------------------------------------ http */

const double ga_http_percentiles[5] = { 50, 90, 99, 99.9, 99.99 };

const char *ga_http_method(const struct ga_http_opts *o)
{
	return o->method ? o->method : o->body ? "POST" : "GET";
}

static void json_hist_summary(struct ga_json *w, const char *key, const struct ga_hist *h)
{
	static const char *const names[] = { "p50", "p90", "p99", "p99.9", "p99.99" };
	ga_json_key(w, key);
	ga_json_obj_begin(w);
	for (size_t i = 0; i < 5; i++) {
		ga_json_key(w, names[i]);
		ga_json_dbl(w, h->total_count ? (double)ga_hist_percentile(h, ga_http_percentiles[i]) * 1e-9
		                              : NAN);
	}
	ga_json_key(w, "max");
	ga_json_dbl(w, h->total_count ? (double)ga_hist_highest_equivalent(h, h->max_value) * 1e-9 : NAN);
	ga_json_key(w, "mean");
	ga_json_dbl(w, h->total_count ? ga_hist_mean(h) * 1e-9 : NAN);
	ga_json_obj_end(w);
}

static void json_http_counts(struct ga_json *w, const struct ga_http_result *r)
{
	uint64_t requests = r->sent + r->not_sent;
	ga_json_key(w, "requests");
	ga_json_u64(w, requests);
	ga_json_key(w, "errors");
	ga_json_u64(w, r->errors);
	ga_json_key(w, "error_rate");
	ga_json_dbl(w, requests ? (double)r->errors / (double)requests : NAN);
	ga_json_key(w, "ok");
	ga_json_u64(w, r->ok);
	ga_json_key(w, "timeouts");
	ga_json_u64(w, r->timeouts);
	ga_json_key(w, "transport_errors");
	ga_json_u64(w, r->transport_errors);
	ga_json_key(w, "not_sent");
	ga_json_u64(w, r->not_sent);
	ga_json_key(w, "h2_connection_per_request");
	ga_json_bool(w, r->h2_no_reuse);
	ga_json_key(w, "engine");
	ga_json_str(w, r->engine);
	ga_json_key(w, "retries");
	ga_json_u64(w, r->retries);
	ga_json_key(w, "first_error");
	ga_json_str(w, r->first_error[0] ? r->first_error : NULL);
	ga_json_key(w, "status_classes");
	ga_json_obj_begin(w);
	static const char *const cls[] = { "none", "1xx", "2xx", "3xx", "4xx", "5xx" };
	for (int i = 0; i < 6; i++) {
		ga_json_key(w, cls[i]);
		ga_json_u64(w, r->status_counts[i]);
	}
	ga_json_obj_end(w);
}

static void write_http(struct ga_json *w, const struct ga_http_opts *o, const struct ga_http_result *r)
{
	ga_json_obj_begin(w);
	ga_json_key(w, "schema");
	ga_json_str(w, GA_BENCH_SCHEMA);
	ga_json_key(w, "kind");
	ga_json_str(w, "http");
	ga_json_key(w, "url");
	ga_json_str(w, o->url);
	ga_json_key(w, "method");
	ga_json_str(w, ga_http_method(o));
	ga_json_key(w, "rate_per_s");
	ga_json_dbl(w, o->rate);
	ga_json_key(w, "duration_s");
	ga_json_dbl(w, o->duration_s);
	ga_json_key(w, "connections");
	ga_json_i64(w, o->connections);
	ga_json_key(w, "arrivals");
	ga_json_str(w, o->closed_loop ? "closed-loop" : o->poisson ? "poisson" : "fixed");
	ga_json_key(w, "http_version");
	if (r->http_version)
		ga_json_str(w, r->http_version == 20 ? "2" : r->http_version == 11 ? "1.1" : "1.0");
	else
		ga_json_null(w);
	json_http_counts(w, r);
	ga_json_key(w, "elapsed_s");
	ga_json_dbl(w, r->elapsed_s);
	ga_json_key(w, "achieved_rate_per_s");
	ga_json_dbl(w, r->elapsed_s > 0 ? (double)r->completed / r->elapsed_s : NAN);
	ga_json_key(w, "cold_start");
	ga_json_obj_begin(w);
	ga_json_key(w, "first_ok_s");
	ga_json_dbl(w, r->first_ok_s >= 0 ? r->first_ok_s : NAN);
	ga_json_key(w, "first_latencies_s");
	ga_json_arr_begin(w);
	for (size_t i = 0; i < r->n_cold; i++)
		ga_json_dbl(w, r->cold_latency_s[i]);
	ga_json_arr_end(w);
	ga_json_obj_end(w);
	json_hist_summary(w, "latency_s", &r->latency);
	json_hist_summary(w, "uncorrected_latency_s", &r->service);
	json_hist_summary(w, "generator_lag_s", &r->lag);
	ga_json_key(w, "metrics");
	ga_json_arr_begin(w);
	ga_metric_write_json(w, "http.latency", "s", false, NULL, 0, &r->latency, 1e-9);
	ga_json_arr_end(w);
	ga_json_obj_end(w);
}

int ga_http_result_json(const struct ga_http_opts *o, const struct ga_http_result *r, struct ga_buf *out,
                        bool pretty)
{
	struct ga_json w;
	ga_json_init(&w, out, pretty);
	write_http(&w, o, r);
	return ga_json_finish(&w);
}
